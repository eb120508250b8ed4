"""The Parameter link: a link that holds one parameter array."""

from __future__ import annotations

from typing import Any

from catena import backend, link, variable
from catena.utils import _validate


class Parameter(link.Link):
    """A link holding a single parameter ``W``; calling it returns ``W``.

    It lets a bare array take part in a model (be optimized, serialized and
    moved between devices) like any other link's parameter.

    Args:
        array: The initial array of ``W`` (used as is, not copied); the
            link lives on the array's device.

    Attributes:
        W (~catena.Parameter): The parameter.
    """

    def __init__(self, array: Any) -> None:
        super().__init__()
        if not hasattr(array, 'shape') or not hasattr(array, 'dtype'):
            raise TypeError(f'Parameter: array must be an array; got {_validate.show(array)}')
        with self.init_scope():
            self.W = variable.Parameter(array)
        device = backend.get_device_from_array(array)
        if device != self.device:
            self.to_device(device)

    def forward(self, *args: Any, **kwargs: Any) -> variable.Variable:
        """Returns the parameter ``W`` (the arguments are ignored)."""
        return self.W
