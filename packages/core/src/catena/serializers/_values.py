"""How values become stored arrays and how stored arrays load back into values.

Stored values are NumPy arrays, or None. Nothing here ever needs pickle:

* arrays are stored as they are (copied to host memory);
* Python and NumPy scalars become 0-d arrays;
* strings become 0-d unicode arrays (``bytes``: byte-string arrays);
* None becomes a 0-d structured array with one ``uint8`` field named
  ``__catena_none__`` (:data:`NONE_DTYPE`), which loads back as None.

Loading checks that a stored value fits the object's value before anything
changes: arrays must have the same shape; a different dtype is cast as
:func:`numpy.copyto` allows (``same_kind``: within a kind, or up from bool to
int to float to complex), unless the cast changes what a value means: a
finite float that becomes inf, or an integer outside the target's range.
Python scalars accept what converts safely (``strict=False``: any finite
number).
"""

from __future__ import annotations

from typing import Any, NamedTuple

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


class Problem(NamedTuple):
    """Why a stored value does not fit the object's value.

    Attributes:
        message: The explanation, for error messages.
        error: The exception a direct ``deserializer(key, value)`` call
            raises: :class:`ValueError` for a shape that differs,
            :class:`TypeError` for a dtype, type or value that does not convert (as
            Chainer's deserializers and :func:`numpy.copyto` raise).
    """

    message: str
    error: type[Exception]


def _same_dtype(a: numpy.dtype, b: numpy.dtype) -> bool:
    return bool(a.newbyteorder('=') == b.newbyteorder('='))


def _range_problem(stored: numpy.ndarray, dtype: numpy.dtype) -> str | None:
    info = numpy.iinfo(dtype)
    low, high = int(stored.min()), int(stored.max())
    if info.min <= low and high <= info.max:
        return None
    return (f'the file\'s {stored.dtype} values span [{low}, {high}], outside the range '
            f'[{info.min}, {info.max}] of the object\'s {dtype}')


def _overflow_problem(stored: numpy.ndarray, dtype: numpy.dtype) -> str | None:
    with numpy.errstate(over='ignore', invalid='ignore'):
        cast = stored.astype(dtype)
    overflow = numpy.isfinite(stored) & ~numpy.isfinite(cast)
    count = int(numpy.count_nonzero(overflow))
    if not count:
        return None
    example = stored[overflow].flat[0]
    return (f'{count} finite value(s) of the file\'s {stored.dtype} (such as {example}) '
            f'overflow to inf in the object\'s {dtype}, whose largest finite value is '
            f'{numpy.finfo(dtype).max}')


def _text_problem(stored: numpy.ndarray, dtype: numpy.dtype) -> str | None:
    try:
        same = numpy.array_equal(stored.astype(dtype).astype(stored.dtype), stored)
    except (UnicodeError, ValueError):
        same = False
    if same:
        return None
    return f'the file\'s {stored.dtype} strings do not fit the object\'s {dtype} unchanged'


def cast_problem(stored: numpy.ndarray, dtype: Any) -> Problem | None:
    """Says why the stored array cannot be cast to ``dtype``, or None if it can.

    A cast must be one :func:`numpy.copyto` makes by default (``same_kind``)
    and must keep every value's meaning: no finite float may become inf and
    no integer may fall outside the target's range. Losing precision (float32
    to float16, int64 to float32) is allowed.

    Args:
        stored: The stored array.
        dtype: The dtype of the object's value.
    """
    dtype = numpy.dtype(dtype)
    if _same_dtype(stored.dtype, dtype):
        return None
    if not numpy.can_cast(stored.dtype, dtype, casting='same_kind'):
        return Problem(f'cannot cast the file\'s {stored.dtype} to the object\'s {dtype}: '
                       'not a same-kind cast (numpy.copyto refuses it), so values could '
                       'change, not just lose precision', TypeError)
    if stored.size == 0 or numpy.can_cast(stored.dtype, dtype, casting='safe'):
        return None
    message = None
    if dtype.kind in 'iu':
        message = _range_problem(stored, dtype)
    elif dtype.kind in 'fc':
        message = _overflow_problem(stored, dtype)
    elif dtype.kind in 'SU':
        message = _text_problem(stored, dtype)
    return None if message is None else Problem(message, TypeError)


def _array_problem(value: Any, stored: numpy.ndarray) -> Problem | None:
    if tuple(value.shape) != stored.shape:
        return Problem(f'the file has {describe(stored)}, the object {describe(value)}',
                       ValueError)
    return cast_problem(stored, value.dtype)


def _scalar_problem(value: Any, stored: numpy.ndarray, strict: bool) -> Problem | None:
    if stored.shape != ():
        return Problem(f'the file has {describe(stored)}, the object a {type(value).__name__}',
                       ValueError)
    if isinstance(value, numpy.generic):
        return cast_problem(stored, value.dtype)
    for scalar_type, strict_kinds, loose_kinds in _SCALAR_KINDS:
        if isinstance(value, scalar_type):
            kinds = strict_kinds if strict else loose_kinds
            if stored.dtype.kind not in kinds:
                return Problem(f'the file has {describe(stored)}, which does not convert to '
                               f'the object\'s {type(value).__name__}', TypeError)
            if (scalar_type is int and stored.dtype.kind == 'f'
                    and not numpy.isfinite(stored)):
                return Problem(f'the file has {stored[()]}, which no int can hold', TypeError)
            return None
    return Problem(f'the object holds a {type(value).__name__}; catena loads arrays, numbers, '
                   'strings and None', TypeError)


def load_problem(value: Any, stored: numpy.ndarray | None, strict: bool) -> Problem | None:
    """Says why ``stored`` cannot be loaded into ``value``, or None if it can.

    Args:
        value: The object's current value.
        stored: The stored array, or None.
        strict: Whether a Python scalar accepts only the kinds that convert
            exactly (an int takes no float); arrays and NumPy scalars are cast
            by :func:`cast_problem` either way.
    """
    if stored is None or value is None:
        return None
    if isinstance(value, Variable):
        if value.array is None:
            return None
        value = value.array
    if is_array(value):
        return _array_problem(value, stored)
    return _scalar_problem(value, stored, strict)


def _declared(dtype: numpy.dtype, shape: tuple[int, ...]) -> str:
    return f'{dtype} {shape}'


def _fits_itemsize(stored: numpy.dtype, target: numpy.dtype | None) -> bool:
    # Whether a stored element is no bigger than the target's (or a number).
    return stored.itemsize <= max(32, 0 if target is None else target.itemsize)


def declared_problem(value: Any, dtype: numpy.dtype, shape: tuple[int, ...],
                     strict: bool) -> tuple[Problem | None, bool]:
    """Checks a stored value's declared dtype and shape against ``value``, before reading it.

    It refuses what :func:`load_problem` would refuse whatever the data: a
    shape that differs, a cast :func:`numpy.copyto` refuses, a kind a Python
    scalar does not take. Checks that depend on the values run on the data.

    Args:
        value: The object's current value.
        dtype: The stored value's declared dtype.
        shape: The stored value's declared shape.
        strict: As for :func:`load_problem`.

    Returns:
        The problem (or None), and whether ``value`` bounds the stored size:
        False when it says nothing about it (None, an uninitialized
        Variable, a string).
    """
    if isinstance(value, Variable):
        value = value.array
    if value is None:
        return None, False
    if is_array(value):
        if tuple(value.shape) != shape:
            return Problem(f'the file has {_declared(dtype, shape)}, the object '
                           f'{describe(value)}', ValueError), True
        if not numpy.can_cast(dtype, value.dtype, casting='same_kind'):
            return Problem(f'cannot cast the file\'s {dtype} to the object\'s {value.dtype}: '
                           'not a same-kind cast (numpy.copyto refuses it), so values could '
                           'change, not just lose precision', TypeError), True
        return None, _fits_itemsize(dtype, value.dtype)
    if shape != ():
        return Problem(f'the file has {_declared(dtype, shape)}, the object a '
                       f'{type(value).__name__}', ValueError), True
    if isinstance(value, numpy.generic):
        if not numpy.can_cast(dtype, value.dtype, casting='same_kind'):
            return Problem(f'cannot cast the file\'s {dtype} to the object\'s {value.dtype}',
                           TypeError), True
        return None, _fits_itemsize(dtype, value.dtype)
    for scalar_type, strict_kinds, loose_kinds in _SCALAR_KINDS:
        if isinstance(value, scalar_type):
            if dtype.kind not in (strict_kinds if strict else loose_kinds):
                return Problem(f'the file has {_declared(dtype, shape)}, which does not '
                               f'convert to the object\'s {type(value).__name__}',
                               TypeError), True
            return None, _fits_itemsize(dtype, None)
    return None, False


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
    'NONE_DTYPE', 'NONE_FIELD', 'Problem', 'declared_problem', 'describe', 'from_stored',
    'is_array', 'is_none_marker', 'cast_problem', 'load_problem', 'load_value', 'none_marker',
    'to_storable',
]
