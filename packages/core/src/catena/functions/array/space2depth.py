"""``space2depth``: move spatial blocks into channels (the inverse of depth2space)."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.array import depth2space as _depth2space
from catena.utils import type_check
from catena.variable import Variable


class Space2Depth(FunctionNode):
    """Rearranges ``(B, C, H * r, W * r)`` into ``(B, r * r * C, H, W)``."""

    def __init__(self, r: int) -> None:
        self.r = _depth2space.check_factor(r)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('X',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4,
                          x_type.shape[2] % self.r == 0, x_type.shape[3] % self.r == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        r = self.r
        batch, channels, height, width = x.shape
        height //= r
        width //= r
        # Pixel (h * r + i, w * r + j) of channel c goes to channel (i * r + j) * C + c.
        y = x.reshape(batch, channels, height, r, width, r).transpose(0, 3, 5, 1, 2, 4)
        return y.reshape(batch, r * r * channels, height, width),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return _depth2space.depth2space(grad_outputs[0], self.r),


def space2depth(X: Any, r: int) -> Variable:  # noqa: N803 - Chainer's argument name
    """Computes the space-to-depth transformation for sub-pixel convolution.

    Pixel ``(h * r + i, w * r + j)`` of input channel ``c`` becomes pixel
    ``(h, w)`` of output channel ``(i * r + j) * C + c``; :func:`depth2space`
    is the inverse.

    Args:
        X: A Variable or array of shape ``(batch, C, H * r, W * r)`` and
            floating point type.
        r: The downscaling factor, a positive int.

    Returns:
        Variable: The downscaled variable of shape ``(batch, C * r * r, H, W)``.

    .. admonition:: Example

        >>> X = np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6)
        >>> F.space2depth(X, 2).shape
        (1, 4, 2, 3)
    """
    return Space2Depth(r).apply((X,))[0]
