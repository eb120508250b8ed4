"""``decov``: the DeCov penalty on the off-diagonal covariances of activations."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.loss import _structured
from catena.functions.math.average import average
from catena.functions.math.matmul import matmul
from catena.utils import force_array, type_check
from catena.variable import Variable


class DeCov(FunctionNode):
    """Covariance of the units with a zero diagonal, or ``½ ||·||²`` of it."""

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        _structured.check_reduce('decov', reduce, ('half_squared_sum', 'no'))
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('h',))
        h_type, = in_types
        type_check.expect(h_type.dtype.kind == 'f', h_type.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        h, = inputs
        xp = backend.get_array_module(h)
        cast = h.dtype.type
        h_centered = h - h.mean(axis=0, keepdims=True)
        covariance = force_array(xp.matmul(h_centered.T, h_centered))
        covariance *= self._off_diagonal(xp, h)
        covariance *= cast(1.0 / len(h))
        if self.reduce == 'no':
            return covariance,
        covariance *= covariance
        cost = force_array(covariance.sum())
        cost *= cast(0.5)
        return cost,

    @staticmethod
    def _off_diagonal(xp: Any, h: Any) -> Any:
        n_units = h.shape[1]
        return 1 - xp.eye(n_units, dtype=h.dtype)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        h, = self.get_retained_inputs()
        g, = grad_outputs
        inv_n = 1.0 / len(h)
        off_diagonal = self._off_diagonal(backend.get_array_module(h), h.array)
        h_centered = h - average(h, axis=0, keepdims=True)
        # The gradient of sum(G * Hc^T Hc / N) is Hc (G + G^T) / N; in the reduced
        # case G is the (symmetric) masked covariance times g, so G + G^T = 2 G.
        if self.reduce == 'half_squared_sum':
            covariance = matmul(h_centered, h_centered, transa=True) * off_diagonal
            g = covariance * (g * (2 * inv_n * inv_n))
        else:
            g = g * off_diagonal
            g = (g + g.T) * inv_n
        return matmul(h_centered, g),


def decov(h: Any, reduce: str = 'half_squared_sum') -> Variable:
    """Penalizes the covariance between the units of a layer (DeCov).

    With the columns of ``h`` (``N x M``) centred on their means over the
    batch, :math:`C = \\frac{1}{N} (h - \\bar h)^\\top (h - \\bar h)` is the
    covariance between the ``M`` units. DeCov (Cogswell et al., *Reducing
    Overfitting in Deep Networks by Decorrelating Representations*, 2016)
    penalizes its off-diagonal part:
    :math:`\\frac{1}{2} (\\|C\\|_F^2 - \\|\\mathrm{diag}(C)\\|_2^2)`.

    Args:
        h: A Variable or array of shape ``(N, M)``, of floating point type.
        reduce: ``'half_squared_sum'`` (the scalar penalty) or ``'no'``
            (the ``M x M`` matrix :math:`C` with its diagonal set to zero).

    Returns:
        Variable: The penalty (a scalar) or the covariance matrix.

    Raises:
        ValueError: If ``reduce`` is neither of the two.

    .. admonition:: Example

        >>> h = np.array([[0.0, 1.0], [2.0, -1.0]], dtype=np.float32)
        >>> F.decov(h, reduce='no').array
        array([[ 0., -1.],
               [-1.,  0.]], dtype=float32)
        >>> F.decov(h).array
        array(1., dtype=float32)
    """
    return DeCov(reduce).apply((h,))[0]
