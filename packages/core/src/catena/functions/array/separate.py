"""``separate``: split an array into its slices along an axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array import stack as _stack  # a module: the two import each other
from catena.utils import type_check
from catena.variable import Variable


class Separate(FunctionNode):
    """Splits an array into ``x.shape[axis]`` views without that axis."""

    def __init__(self, axis: int = 0) -> None:
        if not isinstance(axis, int):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        if self.axis >= 0:
            type_check.expect(self.axis < x_type.ndim)
        else:
            type_check.expect(-self.axis <= x_type.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._axis = axis = self.axis % x.ndim
        self._shape = x.shape[:axis] + x.shape[axis + 1:]
        self._dtype = x.dtype
        self._xp = backend.get_array_module(x)
        # The trailing Ellipsis keeps 0-d results as (view) arrays.
        lead = (slice(None),) * axis
        return tuple([x[lead + (i, Ellipsis)] for i in range(x.shape[axis])])

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        zeros = None
        grads = []
        for gy in grad_outputs:
            if gy is None:
                if zeros is None:
                    zeros = self._xp.zeros(self._shape, self._dtype)
                gy = zeros
            grads.append(gy)
        return _stack.stack(grads, self._axis),


def separate(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """Splits ``x`` into its slices along ``axis``, removing that axis.

    It is the inverse of :func:`stack`.

    Args:
        x: A Variable or array.
        axis: The axis to separate along.

    Returns:
        tuple of Variable: ``x.shape[axis]`` views of ``x``.

    .. admonition:: Example

        >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> [y.shape for y in F.separate(x, axis=1)]
        [(2,), (2,), (2,)]
    """
    return Separate(axis).apply((x,))
