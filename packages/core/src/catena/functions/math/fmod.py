"""``fmod``: the remainder of division that takes the sign of the dividend."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array, type_check
from catena.variable import Variable


class Fmod(FunctionNode):
    """``x - fix(x / divisor) * divisor``, with the two inputs broadcast together."""

    @property
    def label(self) -> str:
        return 'fmod'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'divisor'))
        x_type, divisor_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', divisor_type.dtype == x_type.dtype)
        type_check.expect_broadcast_shapes(x_type.shape, divisor_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, divisor = inputs
        return force_array(backend.get_array_module(x).fmod(x, divisor), x.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, divisor = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(gy, x.shape))
            else:
                # The quotient is piecewise constant: a constant for the graph.
                xp = backend.get_array_module(x.array)
                quotient = force_array(xp.fix(x.array / divisor.array))
                ret.append(sum_to(-(gy * quotient), divisor.shape))
        return tuple(ret)


def fmod(x: Any, divisor: Any) -> Variable:
    """Elementwise remainder of division, as :func:`numpy.fmod`.

    :math:`y_i = x_i - \\mathrm{fix}(x_i / d_i)\\, d_i`, where ``fix`` rounds
    toward zero, so the result has the sign of ``x``. The gradients are 1 for
    ``x`` and :math:`-\\mathrm{fix}(x_i / d_i)` for ``divisor`` (the function
    jumps where ``x / divisor`` is an integer).

    Args:
        x: The dividend: a Variable or array of floating point type.
        divisor: The divisor: a Variable or array of the dtype of ``x``,
            broadcastable with it.

    Returns:
        Variable: The remainder.

    .. admonition:: Example

        >>> F.fmod(np.array([5.0, -5.0], dtype=np.float32),
        ...        np.array([3.0, 3.0], dtype=np.float32)).array
        array([ 2., -2.], dtype=float32)
    """
    return Fmod().apply((x, divisor))[0]
