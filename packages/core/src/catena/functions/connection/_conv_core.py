"""The generic n-d convolution kernels and checks shared by the convolution nodes.

The layouts are Chainer's: ``x`` is ``(n, c_in, *dims)``; a convolution
weight is ``(c_out, c_in / groups, *ksize)`` and a deconvolution weight
``(c_in, c_out / groups, *ksize)``. Each kernel is an im2col (or col2im) plus
one matrix product per group over the whole batch: the columns are laid out
channel-major, ``(c * K, n * L)``, so that each product is one large GEMM
(per-sample products read the weight once per sample, and NumPy's stacked
``matmul`` does not always reach BLAS). Only the (smaller) outputs and output
gradients are transposed between ``(n, c, L)`` and ``(c, n * L)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from catena import backend
from catena.utils import conv, type_check


def as_params(value: Any, nd: int, name: str, minimum: int) -> tuple[int, ...]:
    """Returns ``value`` (an int or a sequence of ``nd`` ints) as an ``nd``-tuple of ints.

    Raises:
        TypeError: If it is not an int or a sequence of ints.
        ValueError: If it has another length or an entry below ``minimum``.
    """
    values = tuple(value) if isinstance(value, Sequence) else (value,) * nd
    if len(values) != nd:
        raise ValueError(f'{name} must be an int or a sequence of {nd} ints; got {value!r}')
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, '__index__'):
            raise TypeError(f'{name} must be an int or a sequence of ints; got {value!r}')
    values = tuple(int(v) for v in values)
    if any(v < minimum for v in values):
        raise ValueError(f'{name} must be at least {minimum}; got {value!r}')
    return values


def as_groups(groups: Any) -> int:
    """Validates the number of groups (a positive int)."""
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f'groups must be a positive int; got {groups!r}')
    return groups


def check_types(in_types: Any, nd: int, groups: int, transposed: bool) -> None:
    """The type check of a (de)convolution with inputs ``(x, W[, b])``.

    ``W`` may have another float dtype than ``x`` (as in Chainer); ``b`` has ``x``'s.
    """
    n_in = in_types.size()
    type_check.expect(2 <= n_in, n_in <= 3)
    type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
    x_type, w_type = in_types[0], in_types[1]
    type_check.expect(
        x_type.dtype.kind == 'f',
        w_type.dtype.kind == 'f',
        x_type.ndim == nd + 2,
        w_type.ndim == nd + 2,
    )
    if transposed:
        type_check.expect(x_type.shape[1] == w_type.shape[0])
        if groups > 1:
            type_check.expect(w_type.shape[0] % groups == 0)
    elif groups == 1:
        type_check.expect(x_type.shape[1] == w_type.shape[1])
    else:
        type_check.expect(x_type.shape[1] == w_type.shape[1] * groups,
                          w_type.shape[0] % groups == 0)
    if type_check.eval(n_in) == 3:
        b_type = in_types[2]
        out_channels = w_type.shape[1] * groups if transposed else w_type.shape[0]
        type_check.expect(
            b_type.dtype == x_type.dtype,
            b_type.ndim == 1,
            b_type.shape[0] == out_channels,
        )


def as_weight_dtype(gW: Any, dtype: Any) -> Any:
    """The weight gradient ``gW`` (a Variable in the dtype of x) cast to the dtype of W."""
    if gW.dtype == dtype:
        return gW
    from catena.functions.array.cast import cast

    return cast(gW, dtype)


class _OutputSizeError(ValueError, AssertionError):
    """A (de)convolution with no output (Chainer asserted it)."""


class _OutsizeError(type_check.InvalidType, ValueError):
    """A deconvolution ``outsize`` that does not map back to ``x`` (Chainer: InvalidType)."""


def conv_outsizes(who: str, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                  stride: tuple[int, ...], pad: tuple[int, ...], cover_all: bool,
                  dilate: tuple[int, ...]) -> tuple[int, ...]:
    """The spatial output shape of a convolution; a ValueError with the shapes if empty."""
    outs = tuple(conv.get_conv_outsize(size, k, s, p, cover_all, d) for size, k, s, p, d
                 in zip(x_shape[2:], w_shape[2:], stride, pad, dilate))
    if any(o < 1 for o in outs):
        raise _OutputSizeError(
            f'{who}: the kernel is larger than the padded input: x.shape={x_shape}, '
            f'W.shape={w_shape}, pad={pad}, dilate={dilate}, stride={stride} give the '
            f'output size {outs}')
    return outs


def deconv_outsizes(who: str, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                    stride: tuple[int, ...], pad: tuple[int, ...], outsize: Any,
                    dilate: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """The spatial output shape of a deconvolution and the ``cover_all`` it implies.

    Without ``outsize`` the output is the smallest that the matching
    convolution maps back to the input (see
    :func:`~catena.utils.conv.get_deconv_outsize`). A given ``outsize`` must
    be mapped to the input's spatial shape by that convolution, with or
    without ``cover_all``; a ValueError with the shapes is raised otherwise
    (also an :class:`~catena.utils.type_check.InvalidType`, Chainer's error).
    """
    nd = len(x_shape) - 2
    in_sizes = tuple(x_shape[2:])
    params = list(zip(w_shape[2:], stride, pad, dilate))
    if outsize is None:
        outs = tuple(conv.get_deconv_outsize(size, k, s, p, False, d)
                     for size, (k, s, p, d) in zip(in_sizes, params))
        if any(o < 1 for o in outs):
            raise _OutputSizeError(
                f'{who}: the padding is too large: x.shape={x_shape}, W.shape={w_shape}, '
                f'stride={stride}, pad={pad}, dilate={dilate} give the output size {outs}')
        return outs, False
    outs = as_params(outsize, nd, 'outsize', 1)
    for cover_all in (False, True):
        back = tuple(conv.get_conv_outsize(o, k, s, p, cover_all, d)
                     for o, (k, s, p, d) in zip(outs, params))
        if back == in_sizes:
            return outs, cover_all
    plain = tuple(conv.get_conv_outsize(o, k, s, p, False, d) for o, (k, s, p, d)
                  in zip(outs, params))
    message = (f'{who}: outsize={outs} does not match the input: a convolution with '
               f'W.shape={w_shape}, stride={stride}, pad={pad}, dilate={dilate} maps it to '
               f'{plain} (without cover_all), but x.shape={x_shape}')
    raise _OutsizeError(f'a convolution maps outsize={outs} to x.shape[2:]',
                        f'{plain} != {in_sizes}', message)


def _is_pointwise(ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int]) -> bool:
    """Whether the windows are the pixels themselves (1x1 kernel, stride 1, no padding)."""
    return all(k == 1 for k in ksize) and all(s == 1 for s in stride) and not any(pad)


def _columns(x: Any, ksize: Sequence[int], stride: tuple[int, ...], pad: tuple[int, ...],
             cover_all: bool, dilate: tuple[int, ...], outs: Sequence[int], groups: int) -> Any:
    """im2col, channel-major: ``(groups, c / groups * K, n * L)``."""
    n, c = x.shape[:2]
    if _is_pointwise(ksize, stride, pad):
        return _channel_major(x, groups)
    col = conv.im2col_nd_channel_major(x, ksize, stride, pad, cover_all, dilate, outs)
    return col.reshape(groups, c // groups * math.prod(ksize), n * math.prod(outs))


def _channel_major(a: Any, groups: int) -> Any:
    """``(n, c, *dims)`` copied to ``(groups, c / groups, n * L)``."""
    n, c = a.shape[:2]
    xp = backend.get_array_module(a)
    moved = xp.ascontiguousarray(a.reshape(n, c, -1).swapaxes(0, 1))
    return moved.reshape(groups, c // groups, -1)


def _batch_major(y: Any, n: int, dtype: Any, b: Any) -> Any:
    """``(c, n * L)`` (``c`` may be split in two) as a new ``(n, c, L)`` of ``dtype``, + ``b``."""
    xp = backend.get_array_module(y)
    c = y.size // y.shape[-1]
    moved = y.reshape(c, n, -1).swapaxes(0, 1)
    out = xp.empty(moved.shape, dtype=dtype)
    if b is None:
        out[...] = moved
    else:
        xp.add(moved, b.reshape(1, c, 1), out=out, casting='unsafe')
    return out


def _per_group(a: Any, b: Any) -> Any:
    """``a[g] @ b[g]`` for each group: one 2-d product each, which always reaches BLAS."""
    if a.shape[0] == 1:
        return (a[0] @ b[0])[None]
    xp = backend.get_array_module(a)
    out = xp.empty((a.shape[0], a.shape[1], b.shape[2]),
                   dtype=xp.result_type(a.dtype, b.dtype))
    for g in range(a.shape[0]):
        xp.matmul(a[g], b[g], out=out[g])
    return out


def convolution(x: Any, W: Any, b: Any, stride: tuple[int, ...], pad: tuple[int, ...],
                cover_all: bool, dilate: tuple[int, ...], groups: int,
                outs: tuple[int, ...]) -> Any:
    """``y = conv(x, W) + b``: im2col, then one product per group over the whole batch."""
    n = x.shape[0]
    c_out = W.shape[0]
    col = _columns(x, W.shape[2:], stride, pad, cover_all, dilate, outs, groups)
    # (groups, c_out/g, c/g * K) @ (groups, c/g * K, n * L) -> (c_out, n * L)
    y = _per_group(W.reshape(groups, c_out // groups, -1), col)
    return _batch_major(y, n, x.dtype, b).reshape((n, c_out) + tuple(outs))


def deconvolution(x: Any, W: Any, b: Any, stride: tuple[int, ...], pad: tuple[int, ...],
                  dilate: tuple[int, ...], groups: int, outs: tuple[int, ...]) -> Any:
    """``y = conv^T(x, W) + b``: one product per group over the whole batch, then col2im."""
    n, c_in = x.shape[:2]
    c_out = W.shape[1] * groups
    ksize = tuple(W.shape[2:])
    dims = tuple(x.shape[2:])
    # (groups, c_out/g * K, c_in/g) @ (groups, c_in/g, n * L) -> (c_out, *ksize, n, *dims)
    w_t = W.reshape(groups, c_in // groups, -1).swapaxes(1, 2)
    col = _per_group(w_t, _channel_major(x, groups))
    if _is_pointwise(ksize, stride, pad):
        return _batch_major(col, n, x.dtype, b).reshape((n, c_out) + tuple(outs))
    if col.dtype != x.dtype:
        col = col.astype(x.dtype)
    col = conv.batch_first_view(col.reshape((c_out,) + ksize + (n,) + dims))
    y = conv.col2im_nd_generic(col, stride, pad, outs, dilate)
    if b is not None:
        y += b.reshape((1, c_out) + (1,) * len(outs))
    return y


def convolution_grad_w(x: Any, gy: Any, ksize: Sequence[int], stride: tuple[int, ...],
                       pad: tuple[int, ...], cover_all: bool, dilate: tuple[int, ...],
                       groups: int) -> Any:
    """The gradient of a convolution with respect to its weight ``(c_out, c_in/g, *ksize)``."""
    c = x.shape[1]
    c_out = gy.shape[1]
    col = _columns(x, ksize, stride, pad, cover_all, dilate, gy.shape[2:], groups)
    # (groups, c_out/g, n * L) @ (groups, n * L, c/g * K) -> (groups, c_out/g, c/g * K)
    gw = _per_group(_channel_major(gy, groups), col.swapaxes(1, 2))
    return gw.reshape((c_out, c // groups) + tuple(ksize))
