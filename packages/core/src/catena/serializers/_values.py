"""How values become stored arrays and how stored arrays load back into values.

Stored values are NumPy arrays, or None. Nothing here ever needs pickle:

* arrays are stored as they are (copied to host memory);
* Python and NumPy scalars become 0-d arrays;
* strings become 0-d unicode arrays (``bytes``: byte-string arrays);
* None becomes a 0-d structured array with one ``uint8`` field named
  ``__catena_none__`` (:data:`NONE_DTYPE`), which loads back as None.

Loading checks that a stored value fits the object's value before anything
changes: arrays must have the same shape, and the same dtype under
``strict=True`` (a same-kind cast otherwise, as :func:`numpy.copyto` allows);
Python scalars accept what converts safely (``strict=False``: any number).
"""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.backends._numpy import CpuDevice
from catena.variable import Variable

NONE_FIELD = '__catena_none__'
NONE_DTYPE = numpy.dtype([(NONE_FIELD, numpy.uint8)])

_cpu = CpuDevice()

# Python scalar types with the array kinds they accept (strict, then not strict).
_NUMBER_KINDS = 'biuf'
_SCALAR_KINDS: tuple[tuple[type, str, str], ...] = (
    (bool, 'b', _NUMBER_KINDS),
    (int, 'biu', _NUMBER_KINDS),
    (float, 'biuf', _NUMBER_KINDS),
    (complex, 'biufc', 'biufc'),
    (str, 'U', 'U'),
    (bytes, 'S', 'S'),
)


def none_marker() -> numpy.ndarray:
    """Returns the array that stands for None in a file."""
    return numpy.zeros((), dtype=NONE_DTYPE)


def is_none_marker(array: Any) -> bool:
    """Whether ``array`` is the stored form of None."""
    return (isinstance(array, numpy.ndarray) and array.shape == ()
            and array.dtype.names == (NONE_FIELD,))


def is_array(value: Any) -> bool:
    """Whether ``value`` is an array of some device (NumPy scalars are not)."""
    if isinstance(value, numpy.generic):
        return False
    return isinstance(value, numpy.ndarray) or isinstance(value, backend.get_array_types())


def to_storable(key: str, value: Any) -> numpy.ndarray:
    """Converts a value to the host array that represents it in a file.

    Args:
        key: The value's key, for error messages.
        value: An array of any device, a Variable, a scalar, a string or None.

    Returns:
        A new NumPy array that holds no Python objects.

    Raises:
        TypeError: If the value can only be stored with pickle.
    """
    if isinstance(value, Variable):
        value = value.array
    if value is None:
        return none_marker()
    try:
        if is_array(value):
            array = numpy.array(_cpu.send_array(value), copy=True)
        else:
            array = numpy.array(value)
    except (OverflowError, ValueError) as error:
        raise TypeError(f'cannot store {key!r}: {error}') from None
    if array.dtype.hasobject:
        raise TypeError(
            f'cannot store {key!r}: a {type(value).__name__} that NumPy can only hold as '
            'Python objects; catena stores arrays, numbers, strings and None without pickle')
    return array


def from_stored(key: str, stored: Any) -> numpy.ndarray | None:
    """Normalizes a value taken from a mapping of stored values.

    Accepts what :class:`DictionarySerializer` produced, arrays read from a
    file (the None marker included), plain Python values, and the 0-d object
    array ``numpy.asarray(None)`` that Chainer stores for None.

    Raises:
        ValueError: For any other array of Python objects.
    """
    if stored is None or is_none_marker(stored):
        return None
    array = numpy.asarray(stored)
    if array.dtype.hasobject:
        if array.shape == () and array[()] is None:
            return None
        raise ValueError(f'{key!r} holds Python objects, which catena does not load')
    return array


def describe(value: Any) -> str:
    """A short description of a value for error messages ('float32 (30, 20)')."""
    if value is None:
        return 'None'
    if isinstance(value, Variable):
        value = value.array
    if is_array(value) or isinstance(value, numpy.generic):
        return f'{value.dtype} {tuple(value.shape)}'
    return type(value).__name__


def _same_dtype(a: numpy.dtype, b: numpy.dtype) -> bool:
    return bool(a.newbyteorder('=') == b.newbyteorder('='))


def _array_problem(value: Any, stored: numpy.ndarray, strict: bool) -> str | None:
    if tuple(value.shape) != stored.shape:
        return f'the file has {describe(stored)}, the object {describe(value)}'
    dtype = numpy.dtype(value.dtype)
    if strict and not _same_dtype(stored.dtype, dtype):
        return (f'the file has {describe(stored)}, the object {describe(value)} '
                '(strict=False casts)')
    if not numpy.can_cast(stored.dtype, dtype, casting='same_kind'):
        return f'cannot cast the file\'s {stored.dtype} to the object\'s {dtype}'
    return None


def _scalar_problem(value: Any, stored: numpy.ndarray, strict: bool) -> str | None:
    if stored.shape != ():
        return f'the file has {describe(stored)}, the object a {type(value).__name__}'
    if isinstance(value, numpy.generic):
        if strict and not _same_dtype(stored.dtype, value.dtype):
            return f'the file has {describe(stored)}, the object a {value.dtype} scalar'
        if not numpy.can_cast(stored.dtype, value.dtype, casting='same_kind'):
            return f'cannot cast the file\'s {stored.dtype} to the object\'s {value.dtype}'
        return None
    for scalar_type, strict_kinds, loose_kinds in _SCALAR_KINDS:
        if isinstance(value, scalar_type):
            kinds = strict_kinds if strict else loose_kinds
            if stored.dtype.kind in kinds:
                return None
            return (f'the file has {describe(stored)}, which does not convert to the '
                    f'object\'s {type(value).__name__}')
    return (f'the object holds a {type(value).__name__}; catena loads arrays, numbers, '
            'strings and None')


def load_problem(value: Any, stored: numpy.ndarray | None, strict: bool) -> str | None:
    """Says why ``stored`` cannot be loaded into ``value``, or None if it can.

    Args:
        value: The object's current value.
        stored: The stored array, or None.
        strict: Whether dtypes must match exactly.
    """
    if stored is None or value is None:
        return None
    if isinstance(value, Variable):
        if value.array is None:
            return None
        value = value.array
    if is_array(value):
        return _array_problem(value, stored, strict)
    return _scalar_problem(value, stored, strict)


def load_value(value: Any, stored: numpy.ndarray | None) -> Any:
    """Loads ``stored`` into ``value`` (checked by :func:`load_problem` first).

    Returns:
        None if None was stored; a copy of the stored array if ``value`` is
        None; ``value`` itself, filled in place, if it is an array or a
        Variable; otherwise the stored value converted to ``type(value)``.
    """
    if stored is None:
        return None
    if value is None:
        return stored.copy()
    if isinstance(value, Variable):
        if value.array is None:
            value.array = stored.copy()
        else:
            backend.copyto(value.array, stored)
        return value
    if is_array(value):
        backend.copyto(value, stored)
        return value
    if isinstance(value, numpy.generic):
        return stored.astype(value.dtype)[()]
    return type(value)(stored[()])


__all__ = [
    'NONE_DTYPE', 'NONE_FIELD', 'describe', 'from_stored', 'is_array', 'is_none_marker',
    'load_problem', 'load_value', 'none_marker', 'to_storable',
]
