"""``batch_l2_norm_squared``: the squared L2 norm of each example of a batch."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable


def _per_example_shape(ndim: int, batch: int) -> tuple[int, ...]:
    return (batch,) + (1,) * (ndim - 1)


class BatchL2NormSquared(FunctionNode):
    """``y[i] = sum(x[i] ** 2)`` over all axes but the first."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        x2 = x.reshape(len(x), -1)
        return force_array(xp.einsum('ij,ij->i', x2, x2)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return BatchL2NormSquaredGrad().apply((x, grad_outputs[0]))


class BatchL2NormSquaredGrad(FunctionNode):
    """``gx = 2 * x * gy`` with ``gy`` broadcast over each example."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        gx = x * gy.reshape(_per_example_shape(x.ndim, len(x)))
        gx *= x.dtype.type(2)
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                gy2 = reshape(gy, _per_example_shape(x.ndim, len(x)))
                ret.append(ggx * gy2 * 2)
            else:
                ret.append(_sum(ggx * x * 2, axis=tuple(range(1, x.ndim))))
        return tuple(ret)


def batch_l2_norm_squared(x: Any) -> Variable:
    """The squared L2 norm of each example: ``y[i] = sum(x[i] ** 2)``.

    Args:
        x: A Variable or array of floating point type, at least 2-D; the
            first axis is the batch.

    Returns:
        Variable: A 1-D variable of length ``len(x)``.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
        >>> F.batch_l2_norm_squared(x).array
        array([ 5., 25.], dtype=float32)
    """
    return BatchL2NormSquared().apply((x,))[0]
