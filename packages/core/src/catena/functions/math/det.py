"""``det`` and ``batch_det``: the determinant of a square matrix, or of a batch of them."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.math._linalg import apply_linalg, check_square
from catena.functions.math.inv import batch_inv
from catena.utils import force_array
from catena.variable import Variable


class BatchDet(FunctionNode):
    """Determinants of a batch of square matrices."""

    @property
    def label(self) -> str:
        return 'det'

    def check_type_forward(self, in_types: Any) -> None:
        check_square(in_types, 3)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        a, = inputs
        xp = backend.get_array_module(a)
        return force_array(apply_linalg(xp.linalg.det, a)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        a, = self.get_retained_inputs()
        det_a, = self.get_retained_outputs()
        gy, = grad_outputs
        # d det(A) = det(A) tr(A^-1 dA), so gA = gy det(A) A^-T.
        inv_t = batch_inv(transpose(a, (0, 2, 1)))
        return reshape(gy * det_a, (len(det_a), 1, 1)) * inv_t,


def batch_det(a: Any) -> Variable:
    """The determinants of a batch of square matrices.

    Args:
        a: A Variable or array of shape ``(m, n, n)``, of floating point type.

    Returns:
        Variable: The ``m`` determinants, of shape ``(m,)``.
    """
    return BatchDet().apply((a,))[0]


def det(a: Any) -> Variable:
    """The determinant of the square matrix ``a``.

    Args:
        a: A Variable or array of shape ``(n, n)``, of floating point type.

    Returns:
        Variable: The determinant, a 0-d variable.

    .. admonition:: Example

        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float64)
        >>> float(F.det(a).array)
        -2.0000000000000004
    """
    if _arguments.array('det', 'a', a).ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f'det: a must be a square 2-D matrix; got shape {a.shape} '
                         '(use batch_det for a batch of matrices)')
    return reshape(BatchDet().apply((reshape(a, (1,) + a.shape),))[0], ())
