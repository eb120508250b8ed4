"""``cholesky``: the Cholesky factor of a symmetric positive-definite matrix."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.transpose import transpose
from catena.functions.math._linalg import apply_linalg, check_square
from catena.functions.math.inv import inv
from catena.functions.math.matmul import matmul
from catena.utils import force_array
from catena.variable import Variable


class Cholesky(FunctionNode):
    """The lower-triangular ``L`` with ``a = L L^T``."""

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        a, = inputs
        xp = backend.get_array_module(a)
        return force_array(apply_linalg(xp.linalg.cholesky, a)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        lower, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = backend.get_array_module(lower.array)
        n = lower.shape[0]
        # Phi keeps the lower triangle of a matrix and halves its diagonal.
        phi = xp.tri(n, dtype=lower.dtype) - lower.dtype.type(0.5) * xp.eye(n, dtype=lower.dtype)
        lower_inv = inv(lower)
        p = matmul(lower, gy, transa=True) * phi
        s = matmul(matmul(lower_inv, p, transa=True), lower_inv)
        # The input is symmetric: its gradient is too.
        return (s + transpose(s)) * lower.dtype.type(0.5),


def cholesky(a: Any) -> Variable:
    """The Cholesky decomposition of a symmetric positive-definite matrix.

    Only the lower triangle of ``a`` is read; the gradient is returned
    symmetric, as for a symmetric input.

    Args:
        a: A Variable or array of shape ``(n, n)``, of floating point type.

    Returns:
        Variable: The lower-triangular ``L`` with ``a = L L^T``.

    Raises:
        numpy.linalg.LinAlgError: If ``a`` is not positive-definite.

    .. admonition:: Example

        >>> a = np.array([[4.0, 2.0], [2.0, 2.0]], dtype=np.float32)
        >>> F.cholesky(a).array
        array([[2., 0.],
               [1., 1.]], dtype=float32)
    """
    return Cholesky().apply((a,))[0]
