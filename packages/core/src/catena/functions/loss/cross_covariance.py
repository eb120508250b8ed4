"""``cross_covariance``: the squared cross-covariance penalty between two batches."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.loss import _structured
from catena.functions.math.average import average
from catena.functions.math.matmul import matmul
from catena.utils import force_array, type_check
from catena.variable import Variable


class CrossCovariance(FunctionNode):
    """Cross-covariance ``C = (y - ȳ)ᵀ (z - z̄) / N``, or ``½ ||C||²`` of it."""

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        _structured.check_reduce('cross_covariance', reduce, ('half_squared_sum', 'no'))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 'z'))
        y_type, z_type = in_types
        type_check.expect(y_type.dtype.kind == 'f', y_type.ndim == 2, z_type.ndim == 2)
        y, z = _structured.info(y_type), _structured.info(z_type)
        if y.dtype != z.dtype or y.shape[0] != z.shape[0]:
            raise _structured.fail(None, 'y.dtype == z.dtype and y.shape[0] == z.shape[0]',
                                   y=y, z=z)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, z = inputs
        xp = backend.get_array_module(y)
        cast = y.dtype.type
        y_centered = y - y.mean(axis=0, keepdims=True)
        z_centered = z - z.mean(axis=0, keepdims=True)
        covariance = force_array(xp.matmul(y_centered.T, z_centered))
        covariance *= cast(1.0 / len(y))
        if self.reduce == 'no':
            return covariance,
        covariance *= covariance
        cost = force_array(covariance.sum())
        cost *= cast(0.5)
        return cost,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, z = self.get_retained_inputs()
        g, = grad_outputs
        inv_n = 1.0 / len(y)
        y_centered = y - average(y, axis=0, keepdims=True)
        z_centered = z - average(z, axis=0, keepdims=True)
        # With C = Yc^T Zc / N and G the gradient for C: gy = Zc G^T / N, gz = Yc G / N.
        if self.reduce == 'half_squared_sum':
            g = matmul(y_centered, z_centered, transa=True) * (g * (inv_n * inv_n))
        else:
            g = g * inv_n
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(matmul(z_centered, g, transb=True))
            else:
                ret.append(matmul(y_centered, g))
        return tuple(ret)


def cross_covariance(y: Any, z: Any, reduce: str = 'half_squared_sum') -> Variable:
    """Penalizes the cross-covariance between two batches of activations.

    With the columns of ``y`` (``N x M``) and ``z`` (``N x K``) centred on
    their means over the batch, the cross-covariance matrix is
    :math:`C = \\frac{1}{N} (y - \\bar y)^\\top (z - \\bar z)` (``M x K``).
    The default reduction returns :math:`\\frac{1}{2} \\sum_{ij} C_{ij}^2`,
    which is zero when every unit of ``y`` is uncorrelated with every unit
    of ``z`` (Cheung et al., *Discovering Hidden Factors of Variation in
    Deep Networks*, 2015).

    Args:
        y: A Variable or array of shape ``(N, M)``, of floating point type.
        z: A Variable or array of shape ``(N, K)`` and the dtype of ``y``.
        reduce: ``'half_squared_sum'`` (the scalar penalty) or ``'no'``
            (the ``M x K`` matrix :math:`C`).

    Returns:
        Variable: The penalty (a scalar) or the cross-covariance matrix.

    Raises:
        ValueError: If ``reduce`` is neither of the two.
        InvalidType: If ``y`` and ``z`` are not matrices of one dtype with
            the same number of rows.

    .. admonition:: Example

        >>> y = np.array([[0.0, 1.0], [2.0, 3.0]], dtype=np.float32)
        >>> z = np.array([[1.0], [-1.0]], dtype=np.float32)
        >>> F.cross_covariance(y, z, reduce='no').array
        array([[-1.],
               [-1.]], dtype=float32)
    """
    return CrossCovariance(reduce).apply((y, z))[0]
