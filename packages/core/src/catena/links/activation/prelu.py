"""The :class:`PReLU` link."""

from __future__ import annotations

from typing import Any

from catena.functions.activation.prelu import prelu
from catena.link import Link
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


class PReLU(Link):
    """Parametric ReLU with a learned slope ``W`` for negative inputs.

    Args:
        shape: The shape of ``W``: ``()`` shares one slope over everything,
            ``(C,)`` gives one per channel (the axes after the batch axis).
        init: The initial slope (a scalar, an array or an initializer).

    Attributes:
        W: The slope :class:`~catena.Parameter`.
    """

    def __init__(self, shape: tuple[int, ...] = (), init: Any = 0.25) -> None:
        super().__init__()
        shape = _validate.shape('PReLU', 'shape', shape)
        _validate.broadcastable('PReLU', 'init', init, shape)
        with self.init_scope():
            self.W = Parameter(init, shape)

    def forward(self, x: Any) -> Variable:
        """Applies the parametric ReLU to ``x``.

        Args:
            x: The input Variable or array.

        Returns:
            Variable: The output, of x's shape.
        """
        return prelu(x, self.W)
