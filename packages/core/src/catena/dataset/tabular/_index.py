"""Row and key selections as ``TabularDataset.get_examples`` receives them.

Rows are None (every row), a :class:`slice`, or a list of row positions;
keys are None (every key) or a tuple of key positions. Views keep their own
rows as None, a :class:`range` or a list, and hand a slice down whenever the
rows they read are evenly spaced, so no index list is ever built for them.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from catena import backend

# What a view remembers of its rows: None (all), a range, or a list.
OwnRows = None | range | list[int]


def count(indices: Any, n: int) -> int:
    """The number of rows that ``indices`` selects in a table of ``n`` rows."""
    if indices is None:
        return n
    if isinstance(indices, slice):
        return len(range(n)[indices])
    return len(indices)


def as_range(indices: Any, n: int) -> range | list[int]:
    """The absolute rows of ``indices``: a range for None or a slice, else a list."""
    if indices is None:
        return range(n)
    if isinstance(indices, slice):
        return range(n)[indices]
    return [i + n if i < 0 else i for i in indices]


def range_to_slice(rows: range) -> slice:
    """A slice that selects exactly ``rows`` (whose values lie in ``[0, n)``)."""
    if not rows:
        return slice(0, 0, rows.step)
    stop = rows.stop if rows.stop >= 0 else None
    return slice(rows.start, stop, rows.step)


def compose_rows(own: OwnRows, indices: Any) -> Any:
    """Rows of the base that a view with rows ``own`` reads for ``indices``."""
    if own is None:
        return indices
    if indices is None:
        return range_to_slice(own) if isinstance(own, range) else own
    if isinstance(indices, slice):
        picked = own[indices]
        return range_to_slice(picked) if isinstance(picked, range) else picked
    return [own[i] for i in indices]


def compose_keys(own: tuple[int, ...] | None,
                 key_indices: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """Keys of the base that a view with keys ``own`` reads for ``key_indices``."""
    if own is None:
        return key_indices
    if key_indices is None:
        return own
    return tuple(own[k] for k in key_indices)


def keys_by_owner(owner: Any, key_indices: tuple[int, ...]) -> dict[int, list[int]]:
    """Groups keys by the table that holds them.

    Args:
        owner: Maps a key position to ``(table index, key position there)``.
        key_indices: The key positions asked for.

    Returns:
        ``{table index: [its key positions, in the order asked]}``.
    """
    wanted: dict[int, list[int]] = {}
    for k in key_indices:
        i, local = owner[k]
        wanted.setdefault(i, []).append(local)
    return wanted


def view_rows(index: Any, n: int) -> range | list[int]:
    """Checks the rows of ``dataset.slice[index]`` and returns them as a view keeps them.

    Raises:
        ValueError: A boolean mask whose length is not ``n``.
        IndexError: A row position out of range.
        TypeError: Anything but a slice, integers or a boolean mask.
    """
    if isinstance(index, slice):
        return range(n)[index]
    if isinstance(index, numpy.ndarray):
        if index.ndim != 1:
            raise TypeError(f'rows must be one-dimensional, got an array of shape {index.shape}')
        index = index.tolist()
    elif not isinstance(index, (list, tuple)):
        raise TypeError('rows must be a slice, a list of integers or a boolean mask, '
                        f'got {type(index).__name__}')
    if index and all(isinstance(i, (bool, numpy.bool_)) for i in index):
        if len(index) != n:
            raise ValueError(f'a boolean row mask must have length {n}, got {len(index)}')
        return [i for i, keep in enumerate(index) if keep]
    rows = []
    for i in index:
        if not isinstance(i, (numbers.Integral, numpy.bool_)):
            raise TypeError(f'a row position must be an integer, got {i!r}')
        i = int(i)
        if not -n <= i < n:
            raise IndexError(f'row {i} out of range for a dataset of length {n}')
        rows.append(i + n if i < 0 else i)
    return rows


def take(column: Any, indices: Any) -> Any:
    """Rows ``indices`` (None, a slice or a list) of a list or array column."""
    if indices is None:
        return column
    if isinstance(indices, slice):
        return column[indices]
    if isinstance(column, numpy.ndarray) or (
            not isinstance(column, list) and isinstance(column, backend.get_array_types())):
        array: Any = column
        return array[numpy.asarray(indices, dtype=numpy.intp)]
    return [column[i] for i in indices]
