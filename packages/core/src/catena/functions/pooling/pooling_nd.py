"""The base of n-dimensional pooling (``_PoolingND``) and the argument handling shared by
every pooling function."""

from __future__ import annotations

import operator
from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check


def as_window_tuple(value: Any, ndim: int, name: str, minimum: int) -> tuple[int, ...]:
    """Expands a window argument (``ksize``, ``stride``, ``pad``) to one int per spatial axis.

    Args:
        value: An int, or a sequence of ``ndim`` ints.
        ndim: The number of spatial axes.
        name: The argument's name, for messages.
        minimum: The smallest allowed value (1 for sizes and strides, 0 for pads).

    Returns:
        tuple of int: ``ndim`` ints.

    Raises:
        TypeError: If ``value`` is neither an int nor a sequence of ints.
        ValueError: If a sequence has the wrong length, or a value is below
            ``minimum``.
    """
    if isinstance(value, (tuple, list)):
        values = tuple(value)
    else:
        values = (value,) * ndim
    try:
        values = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f'{name} must be an int or a sequence of {ndim} ints; got {value!r}') \
            from None
    if len(values) != ndim:
        raise ValueError(f'{name} must be an int or a sequence of {ndim} ints (one per spatial '
                         f'axis); got {value!r}')
    if any(v < minimum for v in values):
        raise ValueError(f'{name} must be at least {minimum}; got {value!r}')
    return values


def window_args(ndim: int, ksize: Any, stride: Any, pad: Any
                ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Normalizes ``ksize``, ``stride`` (``None`` means ``ksize``) and ``pad`` to ``ndim``-tuples.

    Raises:
        TypeError, ValueError: See :func:`as_window_tuple`.
    """
    if ndim <= 0:
        raise ValueError(f'pooling needs at least one spatial axis; got ndim={ndim}')
    ksize = as_window_tuple(ksize, ndim, 'ksize', 1)
    stride = ksize if stride is None else as_window_tuple(stride, ndim, 'stride', 1)
    return ksize, stride, as_window_tuple(pad, ndim, 'pad', 0)


def check_window_fits(x_type: Any, ksize: tuple[int, ...], stride: tuple[int, ...],
                      pad: tuple[int, ...], cover_all: bool, name: str = 'x') -> None:
    """Type-checks that each pooling window has at least one output position.

    ``x_type`` is an ``in_types`` entry (light or full mode) of shape
    ``(n, c, *dims)``, already checked to have ``2 + len(ksize)`` axes.

    Raises:
        InvalidType: With the shape, window, stride and padding, if the
            window does not fit in the padded input along some axis.
    """
    shape = tuple(type_check.eval(x_type.shape))
    for axis, (k, s, p) in enumerate(zip(ksize, stride, pad)):
        size = shape[2 + axis]
        # get_conv_outsize(size, k, s, p, cover_all) >= 1
        reach = size + 2 * p + (s - 1 if cover_all else 0)
        if reach < k:
            raise type_check.InvalidType(
                f'{name}.shape[{2 + axis}] + 2 * pad[{axis}]'
                + (f' + stride[{axis}] - 1 (cover_all)' if cover_all else '')
                + f' >= ksize[{axis}]',
                f'{name}.shape = {shape}, ksize = {ksize}, stride = {stride}, pad = {pad}, '
                f'cover_all = {cover_all}: the window does not fit in the padded input')


def spatial_ndim(x: Any, who: str) -> int:
    """The number of spatial axes of ``x`` (after batch and channel); at least one.

    Raises:
        TypeError: If ``x`` is not a Variable or an array (``who`` names the function).
        ValueError: If ``x`` has fewer than three axes.
    """
    try:
        ndim = len(x.shape) - 2
    except AttributeError:
        _arguments.blame(who, x=x)
        raise
    if ndim < 1:
        raise ValueError(f'pooling needs an input (n, c, *dims) with at least one spatial axis; '
                         f'x.shape is {tuple(x.shape)}')
    return ndim


def check_spatial_ndim(x: Any, ndim: int, who: str) -> None:
    """Raises ValueError unless ``x`` has ``ndim`` spatial axes after ``(n, c)``.

    The 1-d and 3-d wrappers (``max_pooling_1d`` ...) call it before
    dispatching to the n-d implementation; ``who`` names the wrapper when
    ``x`` is not a Variable or an array (a TypeError).
    """
    try:
        actual = len(x.shape) - 2
    except AttributeError:
        _arguments.blame(who, x=x)
        raise
    if actual != ndim:
        raise ValueError(
            f'the number of spatial axes (after batch and channel) of the input x should be '
            f'{ndim}, but x.shape is {tuple(x.shape)} ({actual} spatial axes)')


class _PoolingND(FunctionNode):
    """The base of n-dimensional pooling: window arguments and the input check.

    Args:
        ndim: The number of spatial axes.
        ksize: The window size (an int or one per axis).
        stride: The stride (default: ``ksize``).
        pad: The padding at both ends of each axis.
        cover_all: Add windows that reach past the end so that every input
            pixel is covered (see :func:`catena.utils.conv.get_conv_outsize`).
        return_indices: Whether the caller wants the argmax indices (max pooling).
    """

    def __init__(self, ndim: int, ksize: Any, stride: Any = None, pad: Any = 0,
                 cover_all: bool = True, return_indices: bool = False) -> None:
        self.ndim = ndim
        self.ksize, self.stride, self.pad = window_args(ndim, ksize, stride, pad)
        self.cover_all = cover_all
        self.return_indices = return_indices

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 2 + self.ndim)
        check_window_fits(x_type, self.ksize, self.stride, self.pad, self.cover_all)
