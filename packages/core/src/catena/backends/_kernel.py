"""Registered fast implementations (kernels) and the :data:`Fallback` sentinel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class _FallbackType:
    """The type of :data:`Fallback`; it has exactly one instance."""

    _instance: _FallbackType | None = None

    def __new__(cls) -> _FallbackType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return 'catena.Fallback'

    def __reduce__(self) -> str:
        return 'Fallback'


Fallback = _FallbackType()
"""Returned by a kernel (or ``forward_chainerx``-style hook) to decline a call.

:meth:`catena.FunctionNode.apply` then runs the node's generic ``forward``.
"""


@dataclass(frozen=True)
class Kernel:
    """A fast implementation of one FunctionNode class on one kind of device.

    A kernel may also implement an optimizer's
    :class:`~catena.optimizer.UpdateRule` subclass (a fused parameter update):
    :meth:`UpdateRule.update_core <catena.optimizer.UpdateRule.update_core>`
    then calls ``forward(rule, (param,))``, which updates the parameter in
    place and returns None, or returns :data:`Fallback`. Either way the lookup
    is by exact class, so a user's subclass keeps its own code.

    Args:
        function_node: The :class:`~catena.FunctionNode` (or
            :class:`~catena.optimizer.UpdateRule`) subclass it implements.
        device_type: The :class:`~catena.backend.Device` subclass whose arrays
            it accepts.
        forward: ``forward(node, inputs) -> tuple of arrays`` or
            :data:`Fallback`. ``node`` is the FunctionNode being applied (its
            attributes hold the parameters; the kernel may call
            ``node.retain_inputs``/``retain_outputs`` exactly as ``forward``
            would) and ``inputs`` the tuple of input arrays.
        config_key: The configuration key that gates the kernel (a level:
            ``'never'`` skips it; ``'auto'`` and ``'always'`` call it and the
            kernel may read the level itself). None means the device type's
            ``kernel_config_key``.
        auto_min_size: Under the level ``'auto'``, a call whose first input
            has fewer elements goes straight to the generic code, without
            calling ``forward`` (which would decline it): the size from which
            the kernel beats the generic code.
    """

    function_node: type
    device_type: type
    forward: Callable[[Any, tuple[Any, ...]], Any]
    config_key: str | None = None
    auto_min_size: float = 0
