"""Building a TabularDataset from arrays, lists and callables."""

from __future__ import annotations

import itertools
from typing import Any

from catena.dataset.tabular import _index
from catena.dataset.tabular.tabular_dataset import TabularDataset

_unnamed = itertools.count()
# The mode of a table made by one callable giving several keys, until it is called.
_CALLABLE = object()


class _Source:
    """One entry of ``from_data``: a column, or a callable giving one or more values."""

    def __init__(self, keys: tuple[str, ...], data: Any) -> None:
        if len(keys) != 1 and not callable(data):
            raise ValueError(f'from_data: several keys {keys} need a callable giving '
                             f'their values, got {type(data).__name__}')
        self.keys = keys
        self.data = data

    def values(self, row: int) -> tuple[Any, ...]:
        """The values of this source's keys at ``row`` (a callable source only)."""
        out = self.data(row)
        if len(self.keys) == 1:
            return (out,)
        if isinstance(out, dict):
            return tuple(out[k] for k in self.keys)
        if not isinstance(out, tuple) or len(out) != len(self.keys):
            raise ValueError(f'from_data: the callable for keys {self.keys} must return a '
                             f'tuple of {len(self.keys)} values or a dict, got {out!r}')
        return out


def _source(key: Any, data: Any) -> _Source:
    return _Source((key,) if isinstance(key, str) else tuple(key), data)


def _unnamed_source(data: Any) -> _Source:
    if callable(data):
        raise ValueError('from_data: a callable needs a key: give (key, callable)')
    return _Source((f'_{next(_unnamed)}',), data)


class _FromData(TabularDataset):
    def __init__(self, sources: list[_Source], mode: Any, size: int | None) -> None:
        lengths = {len(s.data) for s in sources if not callable(s.data)}
        if size is not None:
            lengths.add(size)
        if len(lengths) > 1:
            raise ValueError(f'from_data: the columns have different lengths {sorted(lengths)}')
        if not lengths:
            raise ValueError('from_data: give size= when every column is a callable')
        self._length = lengths.pop()
        self._sources = sources
        self._mode = mode
        self._keys = tuple(itertools.chain.from_iterable(s.keys for s in sources))
        self._owner = [(i, k) for i, s in enumerate(sources) for k in range(len(s.keys))]
        self._one_key_each = len(self._keys) == len(sources)

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        if self._mode is _CALLABLE:
            # One callable gives every key: its results decide the mode.
            if self._length and isinstance(self._sources[0].data(0), dict):
                self._mode = dict
            else:
                self._mode = tuple
        return self._mode

    def _column(self, source: _Source, indices: Any) -> Any:
        if callable(source.data):
            return [source.data(r) for r in _index.as_range(indices, self._length)]
        return _index.take(source.data, indices)

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        if self._one_key_each:
            return tuple(self._column(self._sources[k], indices) for k in key_indices)
        wanted = _index.keys_by_owner(self._owner, key_indices)
        columns: dict[tuple[int, int], Any] = {}
        for i, local_keys in wanted.items():
            source = self._sources[i]
            if len(source.keys) == 1:
                columns[i, 0] = self._column(source, indices)
                continue
            rows = [source.values(r) for r in _index.as_range(indices, self._length)]
            for k in local_keys:
                columns[i, k] = [row[k] for row in rows]
        return tuple(columns[self._owner[k]] for k in key_indices)


def _is_named(item: Any) -> bool:
    if not isinstance(item, tuple) or len(item) != 2:
        return False
    key = item[0]
    if isinstance(key, str):
        return True
    return (isinstance(key, tuple) and len(key) > 0
            and all(isinstance(k, str) for k in key) and callable(item[1]))


def from_data(data: Any, *, size: int | None = None) -> TabularDataset:
    """Creates a TabularDataset from columns.

    A column is a list, an array, or a callable ``f(i)`` computing row ``i``.
    A callable may give several keys at once: ``((key, ...), f)`` with ``f``
    returning a tuple of values in key order or a dict by key. Columns
    without a name get a fresh key unique in the process.

    Args:
        data: One column (a unary dataset); a pair ``(key, column)`` (a unary
            dataset with that key, or tuple/dict mode for a callable giving
            several keys, following what it returns); a tuple of columns or
            ``(key, column)`` pairs (tuple mode); or a dict
            ``{key: column}`` (dict mode; a key may be a tuple of keys for a
            callable).
        size: The length, needed when every column is a callable.

    Returns:
        TabularDataset: The table.

    Raises:
        ValueError: Columns of different lengths, callables only and no
            ``size``, or a callable without a key.
    """
    if _is_named(data):
        source = _source(*data)
        mode = None if len(source.keys) == 1 else _CALLABLE
        return _FromData([source], mode, size)
    if isinstance(data, dict):
        return _FromData([_source(k, v) for k, v in data.items()], dict, size)
    if isinstance(data, tuple):
        sources = [_source(*item) if _is_named(item) else _unnamed_source(item)
                   for item in data]
        return _FromData(sources, tuple, size)
    return _FromData([_unnamed_source(data)], None, size)
