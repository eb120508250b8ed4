"""Initializers that fill with constants: Constant, Zero, One, NaN and Identity."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.initializers._base import Initializer


class Constant(Initializer):
    """Fills the array with a constant, or with a broadcastable array of values.

    Args:
        fill_value: A scalar or an array broadcastable to the target shape.
        dtype: The dtype the initializer produces.
    """

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array: Any) -> None:
        if self.dtype is not None and array.dtype != self.dtype:
            raise ValueError(f'array dtype {array.dtype} differs from the initializer dtype '
                             f'{self.dtype}')
        value = self.fill_value
        if hasattr(value, 'shape') and not isinstance(value, numpy.ndarray):
            value = backend.get_device_from_array(value).to_numpy(value)
        array[...] = numpy.broadcast_to(numpy.asarray(value), array.shape)


class Zero(Constant):
    """Fills the array with zeros."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)


class One(Constant):
    """Fills the array with ones."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)


class NaN(Constant):
    """Fills the array with NaN (the default of an uninitialized parameter's grad)."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)


class Identity(Initializer):
    """Fills a square 2-D array with a scaled identity matrix.

    Args:
        scale: The value on the diagonal.
        dtype: The dtype the initializer produces.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError(f'Identity needs a square 2-D array; got shape {array.shape}')
        array[...] = self.scale * numpy.identity(array.shape[0], dtype=array.dtype)
