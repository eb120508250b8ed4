"""``where``: choose elements from two arrays by a boolean condition."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array, type_check
from catena.variable import Variable


class Where(FunctionNode):
    """``condition ? x : y`` element-wise, with broadcasting; ``condition`` is a constant."""

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'y'))
        x_type, y_type = in_types
        condition = type_check.make_variable(self.condition, 'condition')
        type_check.expect(condition.dtype == numpy.bool_, x_type.dtype == y_type.dtype)
        type_check.expect_broadcast_shapes(condition.shape, x_type.shape, y_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, y = inputs
        self._shapes = (x.shape, y.shape)
        return force_array(backend.get_array_module(x).where(self.condition, x, y)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        xp = backend.get_array_module(gy)
        zero = xp.zeros((), gy.dtype)
        ret = []
        for i in indexes:
            pair = (gy, zero) if i == 0 else (zero, gy)
            ret.append(sum_to(Where(self.condition).apply(pair)[0], self._shapes[i]))
        return tuple(ret)


def where(condition: Any, x: Any, y: Any) -> Variable:
    """Chooses elements from ``x`` where ``condition`` holds and from ``y`` elsewhere.

    ``condition``, ``x`` and ``y`` are broadcast together. The gradient flows
    to ``x`` where the condition is true and to ``y`` where it is false.

    Args:
        condition: A boolean Variable or array (never differentiated).
        x: A Variable or array chosen where ``condition`` is True.
        y: A Variable or array of the same dtype as ``x``, chosen elsewhere.

    Returns:
        Variable: The chosen elements, of the broadcast shape.

    .. admonition:: Example

        >>> cond = np.array([True, False, True])
        >>> x = np.array([1, 2, 3], dtype=np.float32)
        >>> y = np.zeros(3, dtype=np.float32)
        >>> F.where(cond, x, y).array
        array([1., 0., 3.], dtype=float32)
    """
    if isinstance(condition, Variable):
        condition = condition.array
    return Where(condition).apply((x, y))[0]
