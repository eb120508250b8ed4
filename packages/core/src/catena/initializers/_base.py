"""The :class:`Initializer` base class and :func:`generate_array`."""

from __future__ import annotations

from typing import Any

import numpy

from catena import _dtype


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
        from catena import backend

        return backend.get_device(device).send_array(array)
    if xp is not numpy and xp is not None:
        return xp.asarray(array)
    return array
