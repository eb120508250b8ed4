"""``local_response_normalization``: normalization across neighbouring channels (AlexNet)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.normalization import _common
from catena.utils import type_check
from catena.variable import Variable


def _window_sum(a: Any, half_n: int) -> Any:
    """Sums ``a`` (``(N, C, ...)``) over the channels ``c - half_n .. c + half_n`` (clipped).

    The loop runs over the window's offsets only; each step is one
    vectorized addition over the whole array.
    """
    out = a.copy()
    for i in range(1, min(half_n, a.shape[1] - 1) + 1):
        out[:, i:] += a[:, :-i]
        out[:, :-i] += a[:, i:]
    return out


class _ChannelWindowSum(FunctionNode):
    """:func:`_window_sum` as a node; it is linear and self-adjoint."""

    def __init__(self, half_n: int) -> None:
        self.half_n = half_n

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _window_sum(inputs[0], self.half_n),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return _ChannelWindowSum(self.half_n).apply(grad_outputs)


class LocalResponseNormalization(FunctionNode):
    """Cross-channel normalization: ``y = x / (k + alpha * sum(x ** 2)) ** beta``.

    The sum runs over the ``n // 2`` channels on each side of a channel and
    the channel itself. Forward keeps ``unit`` (``k + alpha * sum``) and
    ``scale`` (``unit ** -beta``), in float32 at least, for :meth:`backward`.
    """

    def __init__(self, n: int = 5, k: float = 2, alpha: float = 1e-4,
                 beta: float = .75) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f'local_response_normalization: n must be a positive int; '
                             f'got {n!r}')
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        dtype = _common.compute_dtype(x.dtype)
        xc = x.astype(dtype, copy=False)
        unit = _window_sum(xp.square(xc), self.n // 2)
        unit *= dtype.type(self.alpha)
        unit += dtype.type(self.k)
        scale = xp.power(unit, dtype.type(-self.beta))
        self.unit, self.scale = unit, scale
        return xp.multiply(xc, scale).astype(x.dtype, copy=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        grad = LocalResponseNormalizationGrad(self.n, self.k, self.alpha, self.beta,
                                              self.unit, self.scale)
        return grad.apply((x, y, grad_outputs[0]))


class LocalResponseNormalizationGrad(FunctionNode):
    """``(x, y, gy) -> gx`` of LRN, with ``u = k + alpha * sum(x ** 2)``::

        gx = gy * u ** -beta - 2 * alpha * beta * x * window_sum(gy * y / u)
    """

    def __init__(self, n: int, k: float, alpha: float, beta: float, unit: Any,
                 scale: Any) -> None:
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta
        self.unit = unit
        self.scale = scale

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, y, gy = inputs
        xp = backend.get_array_module(x)
        dtype = self.unit.dtype
        summand = xp.multiply(y, gy, dtype=dtype)
        summand /= self.unit
        gx = _window_sum(summand, self.n // 2)
        gx *= x
        gx *= dtype.type(-2 * self.alpha * self.beta)
        gx += xp.multiply(gy, self.scale, dtype=dtype)
        return gx.astype(x.dtype, copy=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        originals = self.get_retained_inputs()
        a, = grad_outputs
        if a is None:
            return (None,) * len(indexes)
        dtype = self.unit.dtype
        x, y, gy, a = (_common.cast(v, dtype) for v in originals + (a,))
        alpha, beta = self.alpha, self.beta
        half_n = self.n // 2

        def window(v: Any) -> Variable:
            return _ChannelWindowSum(half_n).apply((v,))[0]

        # u as a function of x, so that this gradient is differentiable again.
        unit = window(x * x) * alpha + self.k
        window_ax = window(a * x)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                g_unit = (window_ax * gy * y * (2 * alpha * beta) / (unit * unit)
                          - a * gy * beta * unit ** (-beta - 1))
                gx = (x * window(g_unit) * (2 * alpha)
                      - a * window(gy * y / unit) * (2 * alpha * beta))
                ret.append(gx)
            elif i == 1:
                ret.append(gy / unit * window_ax * (-2 * alpha * beta))
            else:
                ret.append(a * unit ** -beta - y / unit * window_ax * (2 * alpha * beta))
        return tuple(_common.cast(g, originals[i].dtype) for g, i in zip(ret, indexes))


def local_response_normalization(x: Any, n: int = 5, k: float = 2, alpha: float = 1e-4,
                                 beta: float = .75) -> Variable:
    """Local response normalization across neighbouring channels.

    For ``x`` of shape ``(N, C, ...)``,
    ``y_c = x_c / (k + alpha * sum_{|c' - c| <= n // 2} x_{c'} ** 2) ** beta``,
    the sum clipped at the first and last channel.

    Args:
        x: The input, at least 2-D with the channels on axis 1.
        n: The width of the normalization window (``n // 2`` channels on
            each side are summed).
        k: The smoothing constant.
        alpha: The scale of the sum of squares.
        beta: The exponent.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.ones((1, 3), np.float32)
        >>> F.local_response_normalization(x, n=3, k=1, alpha=1, beta=1).array
        array([[0.33333334, 0.25      , 0.33333334]], dtype=float32)

    See: Section 3.3 of `ImageNet Classification with Deep Convolutional Neural Networks
    <https://www.cs.toronto.edu/~fritz/absps/imagenet.pdf>`_
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
