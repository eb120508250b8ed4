"""Views of TabularDataset: slices, mode changes, concat, join, transforms."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.dataset.tabular import tabular_dataset

_UNKNOWN = object()


def take(column: Any, indices: Any) -> Any:
    """Rows ``indices`` (None, a slice or a list) of a list or array column."""
    if indices is None:
        return column
    if isinstance(indices, slice):
        return column[indices]
    if isinstance(column, backend.get_array_types()):
        array: Any = column
        return array[numpy.asarray(indices, dtype=numpy.intp)]
    return [column[i] for i in indices]


def resolve_rows(indices: Any, n: int) -> list[int] | range:
    """The absolute rows that ``indices`` (None, a slice or a list) selects."""
    if indices is None:
        return range(n)
    if isinstance(indices, slice):
        return range(n)[indices]
    return list(indices)


def rows_as_indices(rows: list[int] | range) -> Any:
    """Turns rows back into what ``get_examples`` takes (a slice when possible)."""
    if isinstance(rows, range) and rows.step > 0:
        return slice(rows.start, rows.stop, rows.step)
    return list(rows)


def _normalize_rows(index: Any, n: int) -> list[int] | range:
    if isinstance(index, slice):
        return range(n)[index]
    array = numpy.asarray(index)
    if array.dtype == numpy.bool_:
        if array.shape != (n,):
            raise ValueError(f'a boolean row mask must have shape ({n},), got {array.shape}')
        return [int(i) for i in numpy.flatnonzero(array)]
    if array.ndim != 1 or array.dtype.kind not in 'iu':
        raise TypeError('rows must be a slice, a list of integers or a boolean mask, '
                        f'got {index!r}')
    rows = []
    for i in array.tolist():
        if not -n <= i < n:
            raise IndexError(f'row {i} out of range for a dataset of length {n}')
        rows.append(i + n if i < 0 else i)
    return rows


def _key_index(keys: tuple[str, ...], key: Any) -> int:
    if isinstance(key, str):
        if key not in keys:
            raise KeyError(f'unknown key {key!r}; the keys are {keys}')
        return keys.index(key)
    if isinstance(key, (int, numpy.integer)):
        if not -len(keys) <= key < len(keys):
            raise IndexError(f'key position {key} out of range for keys {keys}')
        return int(key) % len(keys)
    raise TypeError(f'a key is a name or a position, got {key!r}')


class SliceHelper:
    """The object behind ``dataset.slice[rows, keys]``."""

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise TypeError('use dataset.slice[rows] or dataset.slice[rows, keys]')
            index, keys = args
        else:
            index, keys = args, None
        return Slice(self._dataset, index, keys)


class Slice(tabular_dataset.TabularDataset):
    def __init__(self, dataset: tabular_dataset.TabularDataset, index: Any, keys: Any) -> None:
        self._dataset = dataset
        self._rows = _normalize_rows(index, len(dataset))
        base_keys = dataset.keys
        if keys is None:
            self._key_indices = tuple(range(len(base_keys)))
            self._mode = dataset.mode
        elif isinstance(keys, tuple):
            self._key_indices = tuple(_key_index(base_keys, k) for k in keys)
            self._mode = dict if dataset.mode is dict else tuple
        else:
            self._key_indices = (_key_index(base_keys, keys),)
            self._mode = None
        self._keys = tuple(base_keys[k] for k in self._key_indices)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        own = self._rows
        if indices is None:
            rows: list[int] | range = own
        elif isinstance(indices, slice):
            rows = own[indices]
        else:
            rows = [own[i] for i in indices]
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        base_keys = tuple(self._key_indices[k] for k in key_indices)
        return self._dataset.get_examples(rows_as_indices(rows), base_keys)


class AsMode(tabular_dataset.TabularDataset):
    def __init__(self, dataset: tabular_dataset.TabularDataset, mode: Any) -> None:
        self._dataset = dataset
        self._mode = mode

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)


def _join_columns(pieces: list[Any]) -> Any:
    if all(isinstance(p, numpy.ndarray) for p in pieces) and pieces:
        return numpy.concatenate(pieces)
    return list(itertools.chain.from_iterable(pieces))


class Concat(tabular_dataset.TabularDataset):
    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        keys = datasets[0].keys
        for d in datasets[1:]:
            if d.keys != keys:
                raise ValueError(f'concat needs datasets with the same keys: {keys} != {d.keys}')
        self._datasets = datasets
        self._ends = list(itertools.accumulate(len(d) for d in datasets))

    def __len__(self) -> int:
        return self._ends[-1]

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> Any:
        return self._datasets[0].mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self.keys)))
        rows = resolve_rows(indices, len(self))
        starts = [0] + self._ends[:-1]
        if isinstance(rows, range) and rows.step == 1:
            parts = []
            for d, start, end in zip(self._datasets, starts, self._ends):
                lo, hi = max(rows.start, start), min(rows.stop, end)
                if lo < hi:
                    parts.append(d.get_examples(slice(lo - start, hi - start), key_indices))
            if not parts:
                return tuple([] for _ in key_indices)
            return tuple(_join_columns([p[k] for p in parts]) for k in range(len(key_indices)))
        out: list[list[Any]] = [[None] * len(rows) for _ in key_indices]
        for d, start, end in zip(self._datasets, starts, self._ends):
            where = [(pos, r - start) for pos, r in enumerate(rows) if start <= r < end]
            if not where:
                continue
            columns = d.get_examples([local for _, local in where], key_indices)
            for column, target in zip(columns, out):
                for (pos, _), value in zip(where, column):
                    target[pos] = value
        return tuple(out)


class Join(tabular_dataset.TabularDataset):
    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        n = len(datasets[0])
        for d in datasets[1:]:
            if len(d) != n:
                raise ValueError(f'join needs datasets of the same length: {n} != {len(d)}')
        keys = tuple(itertools.chain.from_iterable(d.keys for d in datasets))
        if len(set(keys)) != len(keys):
            raise ValueError(f'join needs distinct keys, got {keys}')
        self._datasets = datasets
        self._keys = keys
        self._owner = [(i, k) for i, d in enumerate(datasets) for k in range(len(d.keys))]

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        return dict if self._datasets[0].mode is dict else tuple

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        wanted: dict[int, list[int]] = {}
        for k in key_indices:
            i, local = self._owner[k]
            wanted.setdefault(i, []).append(local)
        fetched = {i: dict(zip(locals_, self._datasets[i].get_examples(indices, tuple(locals_))))
                   for i, locals_ in wanted.items()}
        return tuple(fetched[self._owner[k][0]][self._owner[k][1]] for k in key_indices)


def _call(dataset: tabular_dataset.TabularDataset, func: Callable[..., Any],
          values: tuple[Any, ...]) -> Any:
    if dataset.mode is dict:
        return func(**dict(zip(dataset.keys, values)))
    return func(*values)


class Transform(tabular_dataset.TabularDataset):
    def __init__(self, dataset: tabular_dataset.TabularDataset, keys: Any,
                 func: Callable[..., Any], batch: bool) -> None:
        self._dataset = dataset
        self._unary = not isinstance(keys, tuple)
        self._keys = (keys,) if self._unary else tuple(keys)
        self._func = func
        self._batch = batch
        self._mode: Any = None if self._unary else _UNKNOWN

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        if self._mode is _UNKNOWN:
            if len(self) == 0:
                return tuple
            self.get_examples([0], None)
        return self._mode

    def _values(self, out: Any) -> tuple[Any, ...]:
        if isinstance(out, tuple) and not self._unary:
            mode: Any = tuple
            values = out
        elif isinstance(out, dict) and not self._unary:
            mode = dict
            values = tuple(out[k] for k in self._keys)
        else:
            if not self._unary:
                raise ValueError(f'the transform returned a {type(out).__name__}; with keys '
                                 f'{self._keys} it must return a tuple or a dict')
            return (out,)
        if len(values) != len(self._keys):
            raise ValueError(f'the transform returned {len(values)} values for the keys '
                             f'{self._keys}')
        if self._mode is _UNKNOWN:
            self._mode = mode
        elif self._mode is not mode:
            raise ValueError('the transform must always return the same type (tuple or dict)')
        return values

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        columns = self._dataset.get_examples(indices, None)
        if self._batch:
            out = self._values(_call(self._dataset, self._func, columns))
        else:
            rows = [self._values(_call(self._dataset, self._func, row)) for row in zip(*columns)]
            out = tuple(list(col) for col in zip(*rows)) if rows else tuple(
                [] for _ in self._keys)
        return tuple(out[k] for k in key_indices)


class WithConverter(AsMode):
    def __init__(self, dataset: tabular_dataset.TabularDataset,
                 converter: Callable[..., Any]) -> None:
        super().__init__(dataset, dataset.mode)
        self._converter = converter

    def convert(self, data: Any) -> Any:
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)
