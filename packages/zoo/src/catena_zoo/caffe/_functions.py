"""Caffe's own arithmetic where it differs from catena's functions.

Pooling rounds the output size up (Caffe's CEIL mode) and divides an
average by the part of the window that lies inside the padded input; LRN
within a channel averages over a spatial window; Reshape and Flatten read
their shapes with Caffe's rules (0 copies a dimension, -1 is inferred,
negative axes). Each helper is written with catena functions, so gradients
flow through it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy

from catena import backend, functions as F, variable


def pooled_size(size: int, kernel: int, stride: int, pad: int, ceil: bool,
                any_pad: bool) -> int:
    """Returns Caffe's pooled output size along one axis.

    Args:
        size: The input size.
        kernel: The window size.
        stride: The step.
        pad: The padding on each side.
        ceil: True for Caffe's CEIL rounding (its default), False for FLOOR.
        any_pad: Whether any spatial axis is padded; Caffe then drops a last
            window that would start inside the trailing padding.

    Returns:
        The number of windows.
    """
    span = size + 2 * pad - kernel
    out = (-(-span // stride) if ceil else span // stride) + 1
    if any_pad and (out - 1) * stride >= size + pad:
        out -= 1
    return out


Size = int | tuple[int, int]


def pair(value: Size) -> tuple[int, int]:
    """Returns a 2-D size as ``(h, w)`` (an int stands for both).

    Args:
        value: An int or a pair of ints.

    Returns:
        The pair.
    """
    if isinstance(value, int):
        return value, value
    h, w = value
    return int(h), int(w)


def max_pooling(x: Any, ksize: Size, stride: Size, pad: Size,
                ceil: bool = True) -> variable.Variable:
    """Max pooling with Caffe's output size.

    ``F.max_pooling_2d(x, ksize, stride=stride, pad=pad)`` computes Caffe's
    windows; its result is returned as it is unless Caffe keeps fewer
    windows (it drops a last window that starts in the padding, and FLOOR
    rounding keeps fewer), which are then cropped off.

    Args:
        x: The input, ``(N, C, H, W)``; ``F.max_pooling_2d`` refuses another
            number of axes.
        ksize: The window, an int or ``(kh, kw)`` (passed on as given).
        stride: The step, an int or ``(sh, sw)``.
        pad: The padding, an int or ``(ph, pw)``.
        ceil: Caffe's rounding mode (True: CEIL).

    Returns:
        The pooled variable.
    """
    if x.ndim != 4:
        return cast(variable.Variable, F.max_pooling_2d(x, ksize, stride=stride, pad=pad))
    k, s, p = pair(ksize), pair(stride), pair(pad)
    out = _output_size(x.shape[2:], k, s, p, ceil)
    y = cast(variable.Variable, F.max_pooling_2d(x, ksize, stride=stride, pad=pad))
    if out == _output_size(x.shape[2:], k, s, p, True, caffe_drop=False):
        return y
    return F.get_item(y, (slice(None), slice(None), slice(0, out[0]), slice(0, out[1])))


def average_pooling(x: Any, ksize: Size, stride: Size, pad: Size,
                    ceil: bool = True) -> variable.Variable:
    """Average pooling with Caffe's output size and divisor.

    Caffe divides each window's sum by the window's extent clipped to the
    padded input (the padding counts, what lies beyond it does not). When
    every one of Caffe's windows lies inside the padded input, which is
    ``F.average_pooling_2d``'s geometry, that function's result is returned
    as it is; otherwise the windows that reach past the padded input get
    Caffe's divisor.

    Args:
        x: The input, ``(N, C, H, W)``; ``F.average_pooling_2d`` refuses
            another number of axes.
        ksize: The window, an int or ``(kh, kw)`` (passed on as given).
        stride: The step, an int or ``(sh, sw)``.
        pad: The padding, an int or ``(ph, pw)``.
        ceil: Caffe's rounding mode (True: CEIL).

    Returns:
        The pooled variable.
    """
    if x.ndim != 4:
        return F.average_pooling_2d(x, ksize, stride=stride, pad=pad)
    k, s, p = pair(ksize), pair(stride), pair(pad)
    size = x.shape[2:]
    out = _output_size(size, k, s, p, ceil)
    if out == _output_size(size, k, s, p, False, caffe_drop=False):
        return F.average_pooling_2d(x, ksize, stride=stride, pad=pad)
    widths = [(0, 0), (0, 0)]
    divisors = []
    for axis in range(2):
        n = out[axis]
        padded = max(size[axis] + 2 * p[axis], (n - 1) * s[axis] + k[axis])
        widths.append((p[axis], padded - size[axis] - p[axis]))
        starts = numpy.arange(n) * s[axis] - p[axis]
        ends = numpy.minimum(starts + k[axis], size[axis] + p[axis])
        divisors.append(numpy.maximum(ends - starts, 1))
    x = F.pad(x, widths, mode='constant', constant_values=0)
    mean = F.average_pooling_2d(x, k, s, 0)
    if mean.shape[2:] != out:
        mean = F.get_item(mean, (slice(None), slice(None), slice(0, out[0]),
                                 slice(0, out[1])))
    correction = (k[0] * k[1]) / numpy.outer(divisors[0], divisors[1])
    xp = backend.get_array_module(mean.array)
    return mean * xp.asarray(correction, dtype=mean.dtype)


def _output_size(size: Sequence[int], ksize: tuple[int, int], stride: tuple[int, int],
                 pad: tuple[int, int], ceil: bool, caffe_drop: bool = True) -> tuple[int, int]:
    """Returns Caffe's pooled ``(h, w)``; without ``caffe_drop``, catena's pooling's."""
    any_pad = caffe_drop and (pad[0] > 0 or pad[1] > 0)
    return (pooled_size(size[0], ksize[0], stride[0], pad[0], ceil, any_pad),
            pooled_size(size[1], ksize[1], stride[1], pad[1], ceil, any_pad))


def lrn_within_channel(x: Any, size: int, alpha: float, beta: float) -> variable.Variable:
    """Caffe's WITHIN_CHANNEL LRN: ``x / (1 + alpha * mean x^2) ** beta``.

    The mean runs over a ``size`` x ``size`` spatial window, zero-padded by
    ``(size - 1) // 2`` (Caffe's average pooling of the squares).

    Args:
        x: The input, ``(N, C, H, W)``.
        size: The window size (odd).
        alpha: The scale of the mean.
        beta: The exponent.

    Returns:
        The normalised variable.
    """
    pad = (size - 1) // 2
    mean = average_pooling(x * x, (size, size), (1, 1), (pad, pad))
    return x * (mean * alpha + 1.0) ** (-beta)


def reshape_shape(shape: Sequence[int], dims: Sequence[int], axis: int,
                  num_axes: int) -> tuple[int, ...]:
    """Returns the output shape of Caffe's Reshape layer.

    Args:
        shape: The input shape.
        dims: The ``reshape_param.shape.dim`` values: 0 copies the input
            dimension at that place, -1 (at most once) is inferred.
        axis: The first input axis replaced (negative counts from the end,
            -1 meaning after the last axis).
        num_axes: How many input axes are replaced (-1: all from ``axis``).

    Returns:
        The new shape.

    Raises:
        ValueError: If the parameters do not fit ``shape``.
    """
    ndim = len(shape)
    start = axis if axis >= 0 else ndim + axis + 1
    end = ndim if num_axes == -1 else start + num_axes
    if not 0 <= start <= ndim or num_axes < -1 or end > ndim:
        raise ValueError(f'Reshape: axis={axis}, num_axes={num_axes} do not fit an input of '
                         f'shape {tuple(shape)}')
    new: list[int] = []
    inferred = None
    for i, dim in enumerate(dims):
        if dim == 0:
            if start + i >= ndim:
                raise ValueError(f'Reshape: dim {i} is 0 (copy) but the input of shape '
                                 f'{tuple(shape)} has no axis {start + i}')
            new.append(int(shape[start + i]))
        elif dim == -1:
            if inferred is not None:
                raise ValueError('Reshape: more than one dim is -1')
            inferred = len(new)
            new.append(1)
        elif dim > 0:
            new.append(int(dim))
        else:
            raise ValueError(f'Reshape: dim {i} is {dim}; expected -1, 0 or a positive size')
    out = [int(d) for d in shape[:start]] + new + [int(d) for d in shape[end:]]
    total = math.prod(int(d) for d in shape)
    if inferred is not None:
        known = math.prod(out)
        if known == 0 or total % known:
            raise ValueError(f'Reshape: cannot infer the -1 dim of {tuple(dims)} from an input '
                             f'of shape {tuple(shape)}')
        out[start + inferred] = total // known
    if math.prod(out) != total:
        raise ValueError(f'Reshape: an input of shape {tuple(shape)} cannot become '
                         f'{tuple(out)}')
    return tuple(out)


def flatten_shape(shape: Sequence[int], axis: int, end_axis: int) -> tuple[int, ...]:
    """Returns the output shape of Caffe's Flatten layer (axes ``axis..end_axis`` merged).

    Args:
        shape: The input shape.
        axis: The first merged axis (negative counts from the end).
        end_axis: The last merged axis (negative counts from the end).

    Returns:
        The new shape.
    """
    ndim = len(shape)
    first = axis + ndim if axis < 0 else axis
    last = end_axis + ndim if end_axis < 0 else end_axis
    if not 0 <= first <= last < ndim:
        raise ValueError(f'Flatten: axis={axis}, end_axis={end_axis} do not fit an input of '
                         f'shape {tuple(shape)}')
    merged = math.prod(int(d) for d in shape[first:last + 1])
    return tuple(int(d) for d in shape[:first]) + (merged,) + tuple(
        int(d) for d in shape[last + 1:])


def scale_and_bias(x: Any, scale: Any, bias: Any, axis: int) -> variable.Variable:
    """Caffe's Scale: ``x * scale + bias``, broadcast from ``axis``.

    Args:
        x: The input.
        scale: The scale, whose shape matches ``x.shape[axis:axis + scale.ndim]``
            (a 0-dimensional scale multiplies everything).
        bias: The bias (same shape as ``scale``), or None.
        axis: The first axis of ``x`` the scale lines up with (negative
            counts from the end).

    Returns:
        The scaled variable.
    """
    if axis < 0:
        axis += x.ndim
    y = F.scale(x, scale, axis)
    if bias is not None:
        y = F.bias(y, bias, axis)
    return y
