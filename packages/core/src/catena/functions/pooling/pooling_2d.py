"""The base of 2-dimensional pooling (``Pooling2D``)."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.functions.pooling import pooling_nd
from catena.utils import type_check


class Pooling2D(FunctionNode):
    """The base of 2-d pooling over ``(n, c, h, w)`` inputs.

    The window arguments are kept as Chainer names them: ``kh, kw``, ``sy,
    sx``, ``ph, pw``.

    Args:
        ksize: The window size (an int or a pair).
        stride: The stride (default: ``ksize``).
        pad: The padding at both ends of each axis.
        cover_all: Add windows that reach past the end so that every input
            pixel is covered (see :func:`catena.utils.conv.get_conv_outsize`).
        return_indices: Whether the caller wants the argmax indices (max pooling).
    """

    def __init__(self, ksize: Any, stride: Any = None, pad: Any = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        (self.kh, self.kw), (self.sy, self.sx), (self.ph, self.pw) = pooling_nd.window_args(
            2, ksize, stride, pad)
        self.cover_all = cover_all
        self.return_indices = return_indices

    @property
    def ksize(self) -> tuple[int, int]:
        return self.kh, self.kw

    @property
    def stride(self) -> tuple[int, int]:
        return self.sy, self.sx

    @property
    def pad(self) -> tuple[int, int]:
        return self.ph, self.pw

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4)
        pooling_nd.check_window_fits(x_type, self.ksize, self.stride, self.pad, self.cover_all)
