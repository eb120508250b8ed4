"""``depthwise_convolution_2d``: a 2-d convolution of each input channel on its own."""

from __future__ import annotations

from typing import Any

from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.connection.convolution_2d import convolution_2d
from catena.utils import type_check
from catena.variable import Variable


def _invalid(expect: str, actual: str) -> type_check.InvalidType:
    return type_check.InvalidType(
        expect, actual, 'Invalid operation is performed in: depthwise_convolution_2d\n\n'
        f'Expect: {expect}\nActual: {actual}\n')


def depthwise_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1,
                             pad: Any = 0) -> Variable:
    """Two-dimensional depthwise convolution.

    Each input channel ``c`` is convolved with its own ``D`` filters
    ``W[:, c]`` (the channel multiplier ``D = W.shape[0]``), with no sum over
    channels. Output channel ``c * D + d`` is input channel ``c`` convolved
    with ``W[d, c]``, plus ``b[c * D + d]``:

    .. math::

        y_{n, cD + d, i, j} = b_{cD + d} + \\sum_{p, q} W_{d, c, p, q}\\,
        x_{n, c, s_y i + p - p_h, s_x j + q - p_w}

    It is :func:`~catena.functions.convolution_2d` with ``groups`` equal to
    the number of input channels, computed that way.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(D, c_in, kh, kw)``.
        b: Bias of shape ``(D * c_in,)``, or None.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.

    Returns:
        Variable: Output of shape ``(n, D * c_in, out_h, out_w)``.

    Raises:
        InvalidType: If the ranks or the channel counts of ``x`` and ``W`` do
            not match (other mismatches are reported by convolution_2d).
        ValueError: If the kernel is larger than the padded input.

    .. admonition:: Example

        >>> x = np.ones((1, 2, 3, 3), dtype=np.float32)
        >>> W = np.stack([np.ones((2, 2, 2)), 2 * np.ones((2, 2, 2))]).astype(np.float32)
        >>> F.depthwise_convolution_2d(x, W).array[0, :, 0, 0]
        array([4., 8., 4., 8.], dtype=float32)
    """
    try:
        shapes = f'x.shape={x.shape}, W.shape={W.shape}'
    except AttributeError:
        _arguments.blame('depthwise_convolution_2d', x=x, W=W)
        raise
    if len(x.shape) != 4 or len(W.shape) != 4:
        raise _invalid('x.ndim == 4 and W.ndim == 4 (x: (n, c, h, w), W: (D, c, kh, kw))',
                       shapes)
    if x.shape[1] != W.shape[1]:
        raise _invalid('x.shape[1] == W.shape[1] (the input channels)',
                       f'{x.shape[1]} != {W.shape[1]} ({shapes})')
    multiplier, channels, kh, kw = W.shape
    # (D, c, kh, kw) -> (c * D, 1, kh, kw): the filters of group c are W[:, c].
    W = reshape(transpose(W, (1, 0, 2, 3)), (channels * multiplier, 1, kh, kw))
    return convolution_2d(x, W, b, stride, pad, groups=channels)
