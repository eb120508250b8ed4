"""``resize_images``: bilinear or nearest-neighbour resizing of 2-D images."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable

_MODES = ('bilinear', 'nearest')


@functools.lru_cache(maxsize=256)
def _source_positions(in_size: int, out_size: int, mode: str,
                      align_corners: bool) -> tuple[numpy.ndarray, numpy.ndarray]:
    """Where each output pixel samples the input along one axis: (index, weights).

    Returns ``index`` of shape ``(out_size, M)`` and ``weights`` (float64) of
    the same shape: output ``k`` is ``sum_m weights[k, m] * input[index[k, m]]``.
    """
    k = numpy.arange(out_size, dtype=numpy.float64)
    if mode == 'nearest':
        index = numpy.minimum(numpy.floor(k * (in_size / out_size)), in_size - 1)
        return index.astype(numpy.intp)[:, None], numpy.ones((out_size, 1))
    if align_corners:
        src = numpy.linspace(0, in_size - 1, num=out_size)
    else:
        src = numpy.maximum((k + 0.5) * (in_size / out_size) - 0.5, 0)
    lower = numpy.floor(src)
    frac = src - lower
    lower = lower.astype(numpy.intp)
    if not frac.any():  # every output sits on an input pixel (e.g. the same size)
        return lower[:, None], numpy.ones((out_size, 1))
    upper = numpy.minimum(lower + 1, in_size - 1)
    return numpy.stack([lower, upper], axis=1), numpy.stack([1 - frac, frac], axis=1)


@functools.lru_cache(maxsize=256)
def _adjoint_positions(in_size: int, out_size: int, mode: str,
                       align_corners: bool) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The transpose of :func:`_source_positions`: which outputs each input feeds.

    Returns ``index`` of shape ``(in_size, M)`` into the outputs and the
    weights; rows are padded with weight 0.
    """
    index, weights = _source_positions(in_size, out_size, mode, align_corners)
    outs = numpy.broadcast_to(numpy.arange(out_size)[:, None], index.shape).ravel()
    ins = index.ravel()
    values = weights.ravel()
    keep = values != 0
    outs, ins, values = outs[keep], ins[keep], values[keep]
    order = numpy.argsort(ins, kind='stable')
    outs, ins, values = outs[order], ins[order], values[order]
    counts = numpy.bincount(ins, minlength=in_size)
    width = max(int(numpy.max(counts)) if counts.size else 0, 1)
    starts = numpy.concatenate(([0], numpy.cumsum(counts)[:-1]))
    slot = numpy.arange(ins.size) - starts[ins]
    adj_index = numpy.zeros((in_size, width), dtype=numpy.intp)
    adj_weights = numpy.zeros((in_size, width))
    adj_index[ins, slot] = outs
    adj_weights[ins, slot] = values
    return adj_index, adj_weights


def _interpolate(x: Any, axis: int, index: numpy.ndarray, weights: numpy.ndarray) -> Any:
    """``y[..., k, ...] = sum_m weights[k, m] * x[..., index[k, m], ...]`` along ``axis``."""
    xp = backend.get_array_module(x)
    trailing = (1,) * (x.ndim - axis - 1)
    if weights.shape[1] == 1 and (weights == 1).all():
        return xp.take(x, xp.asarray(index[:, 0]), axis=axis)
    index = xp.asarray(index)
    weights = xp.asarray(weights.astype(x.dtype))
    y = None
    for m in range(index.shape[1]):
        term = xp.take(x, index[:, m], axis=axis)
        term *= weights[:, m].reshape(weights.shape[:1] + trailing)
        if y is None:
            y = term
        else:
            y += term
    return y


def _resize(x: Any, in_size: tuple[int, ...], out_size: tuple[int, ...], mode: str,
            align_corners: bool, adjoint: bool) -> Any:
    """Resizes ``x`` from ``in_size`` to ``out_size``, or (``adjoint``) applies the
    transposed map to an ``out_size`` array, giving an ``in_size`` one."""
    positions = _adjoint_positions if adjoint else _source_positions
    h_index, h_weights = positions(in_size[0], out_size[0], mode, align_corners)
    w_index, w_weights = positions(in_size[1], out_size[1], mode, align_corners)
    # Interpolate first along the axis that leaves the smaller intermediate.
    if h_index.shape[0] * x.shape[3] <= x.shape[2] * w_index.shape[0]:
        return _interpolate(_interpolate(x, 2, h_index, h_weights), 3, w_index, w_weights)
    return _interpolate(_interpolate(x, 3, w_index, w_weights), 2, h_index, h_weights)


def _check_images(in_types: Any, name: str) -> None:
    type_check._argname(in_types, (name,))
    x_type = in_types[0]
    type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 4)


class ResizeImages(FunctionNode):
    """Resizes ``(n, c, h, w)`` images to ``(n, c, out_H, out_W)``."""

    def __init__(self, output_shape: Any, mode: str = 'bilinear',
                 align_corners: bool = True) -> None:
        try:
            shape = tuple(output_shape)
        except TypeError:
            raise _arguments.wrong_kind('resize_images', 'output_shape',
                                        'a pair of positive ints (out_H, out_W)',
                                        output_shape) from None
        if len(shape) != 2 or not all(isinstance(s, (int, numpy.integer)) and s > 0
                                      for s in shape):
            raise ValueError(f'output_shape must be a pair of positive ints (out_H, out_W); '
                             f'got {output_shape!r}')
        if mode not in _MODES:
            raise ValueError(f"mode must be 'bilinear' or 'nearest'; got {mode!r}")
        self.out_H, self.out_W = int(shape[0]), int(shape[1])
        self.mode = mode
        self.align_corners = bool(align_corners)

    def check_type_forward(self, in_types: Any) -> None:
        _check_images(in_types, 'x')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return _resize(x, x.shape[2:], (self.out_H, self.out_W), self.mode,
                       self.align_corners, adjoint=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ResizeImagesGrad(self._in_shape, (self.out_H, self.out_W), self.mode,
                                self.align_corners).apply(grad_outputs)


class ResizeImagesGrad(FunctionNode):
    """The gradient of resize_images: the transposed interpolation."""

    def __init__(self, input_shape: tuple[int, ...], output_shape: tuple[int, int],
                 mode: str, align_corners: bool) -> None:
        self.input_shape = tuple(input_shape)
        self.out_H, self.out_W = output_shape
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types: Any) -> None:
        _check_images(in_types, 'gy')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        return _resize(gy, self.input_shape[2:], (self.out_H, self.out_W), self.mode,
                       self.align_corners, adjoint=True),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ResizeImages((self.out_H, self.out_W), self.mode,
                            self.align_corners).apply(grad_outputs)


def resize_images(x: Any, output_shape: Any, *, mode: str = 'bilinear',
                  align_corners: bool = True) -> Variable:
    """Resizes images to ``output_shape``.

    With ``mode='bilinear'``, every output pixel interpolates the four input
    pixels around its source position. With ``align_corners=True`` the
    corner pixels of the input and output coincide (source position
    ``i * (h - 1) / (h_O - 1)`` along the height); with False the pixel
    areas are matched as OpenCV does (``(i + 0.5) * h / h_O - 0.5``, clipped
    at 0). With ``mode='nearest'``, output pixel ``i`` copies input pixel
    ``floor(i * h / h_O)`` (``align_corners`` is ignored).

    Args:
        x: A Variable or array of floating point type and shape
            ``(n, c, h, w)``.
        output_shape: ``(h_O, w_O)``, the height and width of the result
            (note: height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: How bilinear sampling positions are computed (see above).

    Returns:
        Variable: The resized images, of shape ``(n, c, h_O, w_O)``.

    .. admonition:: Example

        >>> x = np.array([[[[0, 1], [2, 3]]]], dtype=np.float32)
        >>> F.resize_images(x, (3, 3)).array
        array([[[[0. , 0.5, 1. ],
                 [1. , 1.5, 2. ],
                 [2. , 2.5, 3. ]]]], dtype=float32)
    """
    return ResizeImages(output_shape, mode, align_corners).apply((x,))[0]
