"""The :class:`Initializer` base class and :func:`generate_array`."""

from __future__ import annotations

import math
from typing import Any

import numpy

from catena import _dtype, backend


class Initializer:
    """Fills an array in place: ``initializer(array)``.

    Args:
        dtype: The dtype the initializer produces, or None to follow
            ``catena.config.dtype``.
    """

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def __call__(self, array: Any) -> None:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__(array)')

    def _check_dtype(self, array: Any) -> None:
        if self.dtype is not None and array.dtype != self.dtype:
            raise ValueError(f'{type(self).__name__}: array dtype {array.dtype} differs from '
                             f'the initializer dtype {self.dtype}')


def get_fans(shape: Any) -> tuple[int, int]:
    """Returns ``(fan_in, fan_out)`` of a weight of ``shape``.

    The first axis counts the output units, the second the input units and
    the remaining axes (a convolution kernel) multiply both.

    Args:
        shape: The weight's shape, of length 2 or more.

    Returns:
        tuple: ``(fan_in, fan_out)``.
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f'shape must be of length >= 2 to compute fans: shape={shape}')
    receptive = 1
    for size in shape[2:]:
        receptive *= int(size)
    return int(shape[1]) * receptive, int(shape[0]) * receptive


def _scaled_std(name: str, shape: Any, fan_option: str, scale: float, gain: float) -> float:
    """Returns ``scale * sqrt(gain / fan)`` for the fan chosen by ``fan_option``."""
    fan_in, fan_out = get_fans(shape)
    fan: float
    if fan_option == 'fan_in':
        fan = fan_in
    elif fan_option == 'fan_out':
        fan = fan_out
    elif fan_option == 'fan_avg':
        fan = (fan_in + fan_out) / 2
    else:
        raise ValueError(f"{name}: fan_option must be 'fan_in', 'fan_out' or 'fan_avg'; "
                         f'got {fan_option!r}')
    if fan == 0:
        raise ValueError(f'{name}: shape {tuple(shape)} has a zero {fan_option}')
    return float(scale * math.sqrt(gain / fan))


def _random_state(rng: Any, array: Any) -> Any:
    """Returns ``rng``, or the random module of the array's array module."""
    if rng is not None:
        return rng
    return backend.get_array_module(array).random


# Elements drawn per call when filling a large NumPy array: NumPy draws float64,
# so one draw of a whole array would hold a temporary twice a float32 array's size.
_DRAW_CHUNK = 1 << 16


def _draws_in_order(source: Any) -> bool:
    """Whether ``source`` is NumPy's, whose draws of ``n + m`` values equal a draw of
    ``n`` followed by a draw of ``m``."""
    return source is numpy.random or isinstance(
        source, (numpy.random.RandomState, numpy.random.Generator))


def _fill_random(array: Any, rng: Any, method: str, **params: float) -> None:
    """Fills ``array`` with ``rng.<method>(**params)`` (``rng`` None: the array
    module's ``random``), cast to the array's dtype.

    A large C-contiguous NumPy array is filled a chunk at a time from NumPy's
    generators: the values, and the generator's state afterwards, are those of
    one draw of the whole array, without its float64 temporary.
    """
    source = _random_state(rng, array)
    draw = getattr(source, method)
    size = array.size
    if (size <= _DRAW_CHUNK or not isinstance(array, numpy.ndarray)
            or not array.flags.c_contiguous or not _draws_in_order(source)):
        array[...] = draw(size=array.shape, **params)
        return
    flat = array.reshape(-1)
    for start in range(0, size, _DRAW_CHUNK):
        stop = min(start + _DRAW_CHUNK, size)
        flat[start:stop] = draw(size=stop - start, **params)


def _resolve(initializer: Any) -> Any:
    """Turns a scalar or an array into an initializer; callables pass through."""
    from catena.initializers.constant import Constant, NaN

    if initializer is None:
        return NaN()
    if numpy.isscalar(initializer) or hasattr(initializer, 'shape'):
        return Constant(initializer)
    if not callable(initializer):
        raise TypeError(f'initializer must be an Initializer, a callable, a scalar or an '
                        f'array; got {type(initializer).__name__}')
    return initializer


def generate_array(initializer: Any, shape: Any, xp: Any, dtype: Any = None,
                   device: Any = None) -> Any:
    """Returns a new array of ``shape`` filled by ``initializer``.

    Args:
        initializer: An initializer, callable, scalar or array.
        shape: The shape of the array.
        xp: The array module (NumPy) used when ``device`` is None.
        dtype: The dtype; when None, the initializer's ``dtype`` or
            ``catena.config.dtype``.
        device: The device to create the array on (a spec or Device).

    Returns:
        The filled array.
    """
    initializer = _resolve(initializer)
    init_dtype = getattr(initializer, 'dtype', None)
    if dtype is not None and init_dtype is not None and numpy.dtype(dtype) != init_dtype:
        raise ValueError(f'dtype {numpy.dtype(dtype)} differs from the initializer\'s dtype '
                         f'{init_dtype}')
    dtype = _dtype.get_dtype(dtype if dtype is not None else init_dtype)
    if isinstance(shape, (int, numpy.integer)):
        shape = (int(shape),)
    array = numpy.empty(tuple(shape), dtype=dtype)
    initializer(array)
    if device is not None:
        return backend.get_device(device).send_array(array)
    if xp is not numpy and xp is not None:
        return xp.asarray(array)
    return array
