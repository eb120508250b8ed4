"""``polygamma``: the derivatives of the digamma function."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.math import _special
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array, type_check
from catena.variable import Variable


class PolyGamma(FunctionNode):
    """:math:`\\psi^{(n)}(x)`, the n-th derivative of the digamma function."""

    @property
    def label(self) -> str:
        return 'polygamma'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('n', 'x'))
        n_type, x_type = in_types
        type_check.expect(n_type.dtype.kind == 'i', x_type.dtype.kind == 'f')
        type_check.expect_broadcast_shapes(n_type.shape, x_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        n, x = inputs
        return _special.compute('polygamma', 'polygamma', x, n, x),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        n, x = self.get_retained_inputs()
        # n is an integer input: it has no gradient (only x is differentiable).
        next_order = force_array(n.array + n.array.dtype.type(1))
        gx = grad_outputs[0] * polygamma(next_order, x)
        return None, sum_to(gx, x.shape)


def polygamma(n: Any, x: Any) -> Variable:
    """Elementwise polygamma function, :math:`\\psi^{(n)}(x)`.

    The n-th derivative of the digamma function: ``n = 0`` gives
    :func:`~catena.functions.digamma`. Differentiable with respect to ``x``
    only. On the CPU it needs SciPy.

    Args:
        n: A Variable or array of integer type: the orders (non-negative),
            broadcast against ``x``.
        x: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\psi^{(n)}(x)`, of the dtype of ``x``.

    .. admonition:: Example

        >>> F.polygamma(np.array([1]), np.array([1.0], dtype=np.float64)).array
        array([1.64493407])
    """
    return PolyGamma().apply((n, x))[0]
