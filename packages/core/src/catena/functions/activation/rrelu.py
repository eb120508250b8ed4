"""``rrelu``: the randomized leaky rectified linear unit."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.configuration import config
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise, _scalar
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    lower = _scalar.real(lower, 'l', 'rrelu')
    upper = _scalar.real(upper, 'u', 'rrelu')
    if not 0 <= lower < 1:
        raise ValueError(f'rrelu: l must be in [0, 1); got {lower!r}')
    if not 0 <= upper < 1:
        raise ValueError(f'rrelu: u must be in [0, 1); got {upper!r}')
    if not lower < upper:
        raise ValueError(f'rrelu: l must be less than u; got l={lower!r}, u={upper!r}')
    return lower, upper


class RReLU(FunctionNode):
    """Randomized leaky rectifier: ``x`` for ``x >= 0``, else ``r * x``.

    In training mode ``r`` is drawn uniformly from ``[lower, upper)`` per
    element (unless given); in test mode it is ``(lower + upper) / 2``.
    After forward, ``self.r`` holds the slopes that were used.
    """

    def __init__(self, lower: float = 1. / 8, upper: float = 1. / 3, r: Any = None) -> None:
        self.lower, self.upper = _check_bounds(lower, upper)
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        if self.r is not None and config.train:
            r = type_check.make_variable(self.r, 'r')
            type_check.expect(r.dtype == x_type.dtype, r.shape == x_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        if not config.train:
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        elif self.r is None:
            self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(
                x.dtype, copy=False)
        positive = _piecewise.positive_part(xp, x)
        y = force_array(xp.subtract(x, positive))  # min(x, 0), exactly
        y *= self.r
        y += positive
        self.retain_inputs((0,))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        # 1 where x >= 0, r elsewhere
        coefficient = _piecewise.indicator(x < 0, x.dtype)
        coefficient *= self.r
        coefficient += _piecewise.indicator(x >= 0, x.dtype)
        return _RReLUGrad(coefficient).apply(grad_outputs)


class _RReLUGrad(_piecewise.PiecewiseLinearGrad):
    """The gradient of rrelu: ``gx = gy`` where ``x >= 0``, else ``gy * r``."""


def rrelu(x: Any, l: float = 1. / 8, u: float = 1. / 3, *,  # noqa: E741 - Chainer's name
          r: Any = None, return_r: bool = False) -> Variable | tuple[Variable, Any]:
    """Randomized leaky rectified linear unit, element-wise.

    .. math::

        y_i = \\begin{cases} x_i & (x_i \\ge 0) \\\\ r_i x_i & (x_i < 0) \\end{cases}

    In training mode (``catena.config.train``) each :math:`r_i` is drawn from
    the uniform distribution :math:`U(l, u)` with the array module's random
    generator (NumPy's global one on the CPU, so ``numpy.random.seed`` makes
    it reproducible). In test mode every :math:`r_i` is :math:`(l + u) / 2`,
    and ``r`` is ignored.

    Args:
        x: A Variable or array of floating point type.
        l: The lower bound of the distribution of :math:`r`, in ``[0, 1)``.
        u: The upper bound of the distribution of :math:`r`, in ``(l, 1)``.
        r: The slopes to use instead of random ones (training mode only): an
            array of ``x``'s shape and dtype on its device. ``l`` and ``u``
            are then ignored.
        return_r: Also return the slopes used, e.g. to apply the same ones
            again with ``r=``.

    Returns:
        Variable or tuple: The output; with ``return_r``, the tuple of the
        output and the array ``r``.

    .. admonition:: Example

        >>> x = np.array([-2.0, 0.0, 1.0], dtype=np.float32)
        >>> with catena.using_config('train', False):
        ...     y = F.rrelu(x, l=0.1, u=0.3)
        >>> y.array
        array([-0.4,  0. ,  1. ], dtype=float32)
    """
    if not isinstance(return_r, bool):
        raise TypeError(f'rrelu: return_r must be a bool; got {return_r!r}')
    if r is not None and not (hasattr(r, 'shape') and hasattr(r, 'dtype')):
        raise TypeError(f'rrelu: r must be None or an array; got {type(r).__name__}')
    node = RReLU(l, u, r)
    y, = node.apply((x,))
    if return_r:
        return y, node.r
    return y
