"""``inv`` and ``batch_inv``: the inverse of a square matrix, or of a batch of them."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math._linalg import apply_linalg, check_square
from catena.functions.math.matmul import matmul
from catena.utils import force_array
from catena.variable import Variable


class _InverseBase(FunctionNode):
    _ndim = 2

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, self._ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        a, = inputs
        xp = backend.get_array_module(a)
        return force_array(apply_linalg(xp.linalg.inv, a)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        inv_a, = self.get_retained_outputs()
        gy, = grad_outputs
        # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T gY A^-T.
        return -matmul(matmul(inv_a, gy, transa=True), inv_a, transb=True),


class Inv(_InverseBase):
    """Inverse of a square matrix."""


class BatchInv(_InverseBase):
    """Inverses of a batch of square matrices."""

    _ndim = 3


def inv(a: Any) -> Variable:
    """The inverse of the square matrix ``a``.

    Args:
        a: A Variable or array of shape ``(n, n)``, of floating point type.

    Returns:
        Variable: The inverse.

    Raises:
        numpy.linalg.LinAlgError: If ``a`` is singular (a ValueError).

    .. admonition:: Example

        >>> a = np.array([[2.0, 0.0], [0.0, 4.0]], dtype=np.float32)
        >>> F.inv(a).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return Inv().apply((a,))[0]


def batch_inv(a: Any) -> Variable:
    """The inverses of a batch of square matrices.

    Args:
        a: A Variable or array of shape ``(m, n, n)``, of floating point type.

    Returns:
        Variable: The ``m`` inverses, of shape ``(m, n, n)``.
    """
    return BatchInv().apply((a,))[0]
