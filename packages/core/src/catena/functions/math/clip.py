"""``clip``: limit the elements to an interval."""

from __future__ import annotations

import numbers
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_bound(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, numbers.Real):
        raise TypeError(f'{name} must be a real number or None; got {type(value).__name__}')


class Clip(FunctionNode):
    """Clips the input to ``[x_min, x_max]``; either bound may be None (no limit)."""

    def __init__(self, x_min: Any, x_max: Any) -> None:
        _check_bound(x_min, 'x_min')
        _check_bound(x_max, 'x_max')
        if x_min is None and x_max is None:
            raise ValueError('clip needs x_min or x_max; both are None')
        if x_min is not None and x_max is not None and not x_min < x_max:
            raise ValueError(f'x_min must be less than x_max; got x_min={x_min!r}, '
                             f'x_max={x_max!r}')
        self.x_min = x_min
        self.x_max = x_max

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        if self.x_max is None:
            y = xp.maximum(x, x.dtype.type(self.x_min))
        elif self.x_min is None:
            y = xp.minimum(x, x.dtype.type(self.x_max))
        else:
            y = xp.clip(x, x.dtype.type(self.x_min), x.dtype.type(self.x_max))
        return force_array(y),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        cond = None
        if self.x_min is not None:
            cond = x >= x.dtype.type(self.x_min)
        if self.x_max is not None:
            below_max = x <= x.dtype.type(self.x_max)
            cond = below_max if cond is None else cond & below_max
        return ClipGrad(cond).apply(grad_outputs)


class ClipGrad(FunctionNode):
    """Passes the gradient where the input was inside the interval (``cond``), else 0."""

    def __init__(self, cond: Any) -> None:
        self.cond = cond

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('gy',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        return force_array(xp.where(self.cond, gy, gy.dtype.type(0))),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ClipGrad(self.cond).apply(grad_outputs)


def clip(x: Any, x_min: Any, x_max: Any) -> Variable:
    """Clips (limits) the elements of ``x`` to the interval ``[x_min, x_max]``.

    Elements below ``x_min`` become ``x_min`` and elements above ``x_max``
    become ``x_max``. The gradient is 1 inside the interval, including at its
    edges, and 0 outside.

    Args:
        x: A Variable or array of floating point type.
        x_min: The lower bound (a real number), or None for no lower bound.
        x_max: The upper bound (a real number), or None for no upper bound.

    Returns:
        Variable: The clipped values.

    Raises:
        ValueError: If both bounds are None, or if ``x_min >= x_max``.

    .. admonition:: Example

        >>> F.clip(np.array([-2.0, 0.5, 3.0], dtype=np.float32), -1.0, 1.0).array
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return Clip(x_min, x_max).apply((x,))[0]
