"""``depth2space``: move channel blocks into spatial blocks (sub-pixel upscaling)."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.array import space2depth as _space2depth
from catena.utils import type_check
from catena.variable import Variable


def check_factor(r: Any) -> int:
    """Returns the block size ``r`` after checking that it is a positive int."""
    if not isinstance(r, int) or isinstance(r, bool):
        raise TypeError(f'r must be an int; got {r!r}')
    if r < 1:
        raise ValueError(f'r must be positive; got {r}')
    return r


class Depth2Space(FunctionNode):
    """Rearranges ``(B, r * r * C, H, W)`` into ``(B, C, H * r, W * r)``."""

    def __init__(self, r: int) -> None:
        self.r = check_factor(r)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('X',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4,
                          x_type.shape[1] % (self.r * self.r) == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        r = self.r
        batch, channels, height, width = x.shape
        channels //= r * r
        # Channel (i * r + j) * C + c goes to pixel (h * r + i, w * r + j) of channel c.
        y = x.reshape(batch, r, r, channels, height, width).transpose(0, 3, 4, 1, 5, 2)
        return y.reshape(batch, channels, height * r, width * r),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return _space2depth.space2depth(grad_outputs[0], self.r),


def depth2space(X: Any, r: int) -> Variable:  # noqa: N803 - Chainer's argument name
    """Computes the depth-to-space transformation for sub-pixel convolution.

    Channel ``(i * r + j) * C + c`` of the input becomes the pixels
    ``(h * r + i, w * r + j)`` of output channel ``c``;
    :func:`space2depth` is the inverse.

    Args:
        X: A Variable or array of shape ``(batch, C * r * r, H, W)`` and
            floating point type.
        r: The upscaling factor, a positive int.

    Returns:
        Variable: The upscaled variable of shape ``(batch, C, H * r, W * r)``.

    .. admonition:: Example

        >>> X = np.arange(24, dtype=np.float32).reshape(1, 4, 2, 3)
        >>> y = F.depth2space(X, 2)
        >>> y.shape
        (1, 1, 4, 6)
        >>> y.array[0, 0, :2]
        array([[ 0.,  6.,  1.,  7.,  2.,  8.],
               [12., 18., 13., 19., 14., 20.]], dtype=float32)
    """
    return Depth2Space(r).apply((X,))[0]
