"""``max_pooling_2d``: spatial max pooling of images."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena.function_node import FunctionNode
from catena.functions.pooling import _window, pooling_2d
from catena.utils import type_check
from catena.variable import Variable


class MaxPooling2D(pooling_2d.Pooling2D):
    """Max pooling over ``(n, c, h, w)``.

    After forward, ``indexes`` holds the tap ``i * kw + j`` of each window's
    first maximum, ``(n, c, out_h, out_w)``. It is computed only when
    backprop is enabled or ``return_indices`` is set.
    """

    indexes: Any = None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        with_indexes = self.return_indices or config.enable_backprop
        y, self.indexes = _window.max_pool(x, self.ksize, self.stride, self.pad,
                                           self.cover_all, with_indexes)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPooling2DGrad(self).apply(grad_outputs)


class MaxPooling2DGrad(FunctionNode):
    """The gradient of :class:`MaxPooling2D`: each ``gy`` goes to its window's maximum."""

    def __init__(self, mpool2d: MaxPooling2D) -> None:
        self.mpool2d = mpool2d
        self.kh, self.kw = mpool2d.kh, mpool2d.kw
        self.sy, self.sx = mpool2d.sy, mpool2d.sx
        self.ph, self.pw = mpool2d.ph, mpool2d.pw
        self.cover_all = mpool2d.cover_all
        self.indexes = mpool2d.indexes
        self._in_shape = mpool2d._in_shape
        self._in_dtype = mpool2d._in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _window.scatter(gy, self.indexes, (self.kh, self.kw), (self.sy, self.sx),
                               (self.ph, self.pw), self._in_shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPooling2DWithIndexes(self.mpool2d).apply(grad_outputs)


class MaxPooling2DWithIndexes(FunctionNode):
    """Reads ``x`` at the maxima that a :class:`MaxPooling2D` found (its grad's grad)."""

    def __init__(self, mpool2d: MaxPooling2D) -> None:
        self.mpool2d = mpool2d
        self.kh, self.kw = mpool2d.kh, mpool2d.kw
        self.sy, self.sx = mpool2d.sy, mpool2d.sx
        self.ph, self.pw = mpool2d.ph, mpool2d.pw
        self.cover_all = mpool2d.cover_all
        self.indexes = mpool2d.indexes

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return _window.gather(x, self.indexes, (self.kh, self.kw), (self.sy, self.sx),
                              (self.ph, self.pw)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MaxPooling2DGrad(self.mpool2d).apply(grad_outputs)


def max_pooling_2d(x: Any, ksize: Any, stride: Any = None, pad: Any = 0,
                   cover_all: bool = True, return_indices: bool = False
                   ) -> Variable | tuple[Variable, Any]:
    """Spatial max pooling.

    Each output pixel is the maximum of a ``ksize`` window of the input;
    windows start every ``stride`` pixels of the input padded with ``pad``
    pixels of ``-inf`` on each side.

    Args:
        x: A Variable or array ``(n, c, h, w)``.
        ksize: The window size: an int ``k`` (for ``(k, k)``) or a pair
            ``(kh, kw)``.
        stride: The stride (int or pair); ``None`` uses ``ksize``.
        pad: The padding (int or pair).
        cover_all: If True, add windows at the bottom and right so that
            every input pixel falls into some window (the output size rounds
            up; see :func:`catena.utils.conv.get_conv_outsize`).
        return_indices: If True, also return the argmax of each window: an
            integer array ``(n, c, out_h, out_w)`` holding ``i * kw + j`` for
            the maximum at row ``i``, column ``j`` of its window, as
            :func:`~catena.functions.upsampling_2d` expects.

    Returns:
        Variable, or ``(Variable, indexes)`` with ``return_indices``: the
        pooled array ``(n, c, out_h, out_w)``.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.max_pooling_2d(x, 2).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
        >>> y, indexes = F.max_pooling_2d(x, 3, stride=2, return_indices=True)
        >>> y.shape, indexes[0, 0]
        ((1, 1, 2, 2), array([[8, 7],
               [5, 4]]))
    """
    func = MaxPooling2D(ksize, stride, pad, cover_all, return_indices)
    y = func.apply((x,))[0]
    if return_indices:
        return y, func.indexes.astype(numpy.intp)
    return y
