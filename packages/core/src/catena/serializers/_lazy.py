"""Stored values read on demand, checked against the object's value before they are read.

A loader opens a file, learns each value's declared dtype and shape without
reading its data, and hands the loading code a :class:`LazyValues` mapping.
A value asked for together with the value it loads into (:meth:`load_for`)
is read only if its declaration fits that value, so the memory a load takes
is bounded by the object loaded into. A value read with nothing to check it
against (``values[key]``, or an object value that says nothing about its
size: None, an uninitialized parameter, a string) counts against a budget for
the whole file: ``catena.config.load_max_expansion`` times the bytes the file
stores, plus :data:`UNCHECKED_BYTES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy

from catena import configuration
from catena.serializers import _values
from catena.serializers._errors import UnsafeFileError

Stored = numpy.ndarray | None
DEFAULT_EXPANSION = 100.0
# What every file may expand to unchecked, whatever its stored size.
UNCHECKED_BYTES = 16 << 20


def expansion_limit() -> float:
    """How many times its stored size a file may expand to, unchecked.

    The configuration key ``load_max_expansion`` (environment variable
    ``CATENA_LOAD_MAX_EXPANSION``), 100 by default.
    """
    return float(getattr(configuration.config, 'load_max_expansion', DEFAULT_EXPANSION))


class Declared:
    """What a file declares about one value, before its data is read.

    Attributes:
        dtype: The declared dtype, or None for a stored None.
        shape: The declared shape (``()`` for a stored None).
        where: The file and member or dataset, for messages.
        stored_bytes: The bytes the file spends on it (compressed).
    """

    __slots__ = ('dtype', 'shape', 'stored_bytes', 'where')

    def __init__(self, dtype: numpy.dtype | None, shape: tuple[int, ...], where: str,
                 stored_bytes: int) -> None:
        self.dtype = dtype
        self.shape = shape
        self.where = where
        self.stored_bytes = stored_bytes

    @property
    def nbytes(self) -> int:
        if self.dtype is None:
            return 0
        count = 1
        for n in self.shape:
            count *= n
        return count * self.dtype.itemsize


class LazyValues(Mapping[str, Stored]):
    """A mapping of full keys to stored values that reads each value when asked.

    Subclasses fill ``self._declared`` (key to :class:`Declared`) and
    implement :meth:`_read_value`; they call :meth:`_start_budget` once the
    declarations are known. Values read are kept until :meth:`_forget`.
    """

    source: str
    _declared: dict[str, Declared]

    def _start_budget(self) -> None:
        self._values: dict[str, Stored] = {}
        self._unchecked = 0
        stored = sum(declared.stored_bytes for declared in self._declared.values())
        self._budget = UNCHECKED_BYTES + int(stored * expansion_limit())

    def _read_value(self, key: str, declared: Declared) -> Stored:
        raise NotImplementedError

    def _forget(self) -> None:
        self._values.clear()

    def __iter__(self) -> Iterator[str]:
        return iter(self._declared)

    def __len__(self) -> int:
        return len(self._declared)

    def __contains__(self, key: object) -> bool:
        return key in self._declared

    def declared(self, key: str) -> tuple[numpy.dtype, tuple[int, ...]] | None:
        """The dtype and shape the file declares for ``key`` (None for a stored None)."""
        declared = self._declared[key]
        return None if declared.dtype is None else (declared.dtype, declared.shape)

    def __getitem__(self, key: str) -> Stored:
        """Reads a value, counting its size against the file's budget."""
        return self._read(key, bounded=False)

    def load_for(self, key: str, value: Any,
                 strict: bool) -> tuple[Stored, _values.Problem | None]:
        """Reads the value that loads into ``value``, once its declaration fits ``value``.

        Returns:
            The stored value and the problem that keeps it from loading into
            ``value`` (see :func:`catena.serializers._values.load_problem`);
            when the declaration already does not fit, nothing is read and
            the stored value is None.
        """
        declared = self._declared[key]
        if declared.dtype is None:
            return None, None
        problem, bounded = _values.declared_problem(value, declared.dtype, declared.shape,
                                                    strict)
        if problem is not None:
            return None, problem
        stored = self._read(key, bounded)
        return stored, _values.load_problem(value, stored, strict)

    def _read(self, key: str, bounded: bool) -> Stored:
        if key in self._values:
            return self._values[key]
        declared = self._declared[key]
        if declared.dtype is None:
            return None
        if not bounded:
            self._charge(declared)
        stored = self._read_value(key, declared)
        self._values[key] = stored
        return stored

    def _charge(self, declared: Declared) -> None:
        nbytes = declared.nbytes
        if self._unchecked + nbytes > self._budget:
            raise UnsafeFileError(
                f'{declared.where} declares {declared.dtype} {declared.shape} ({nbytes} '
                f'bytes) from {declared.stored_bytes} stored bytes; with what was read '
                f'before, {self.source} would expand past {self._budget} bytes, '
                f'{expansion_limit():g} times its stored size plus {UNCHECKED_BYTES >> 20} '
                'MiB (a decompression bomb?). Nothing bounds this value by the shape of an '
                'object\'s value. If you trust the file, raise '
                'catena.config.load_max_expansion (environment variable '
                'CATENA_LOAD_MAX_EXPANSION)')
        self._unchecked += nbytes


__all__ = ['DEFAULT_EXPANSION', 'UNCHECKED_BYTES', 'Declared', 'LazyValues',
           'expansion_limit']
