"""Building a TabularDataset from arrays, lists and callables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset.tabular import _ops
from catena.dataset.tabular.tabular_dataset import TabularDataset


class _Columns(TabularDataset):
    def __init__(self, keys: tuple[str, ...], sources: list[Any], mode: Any,
                 size: int | None) -> None:
        lengths = {len(s) for s in sources if not callable(s)}
        if size is not None:
            lengths.add(size)
        if len(lengths) > 1:
            raise ValueError(f'from_data: the columns have different lengths {sorted(lengths)}')
        if not lengths:
            raise ValueError('from_data: give size= when every column is a callable')
        self._length = lengths.pop()
        self._keys = keys
        self._sources = sources
        self._mode = mode

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        out = []
        for k in key_indices:
            source = self._sources[k]
            if callable(source):
                out.append([source(i) for i in _ops.resolve_rows(indices, self._length)])
            else:
                out.append(_ops.take(source, indices))
        return tuple(out)


def _is_named(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)


def from_data(data: Any, *, size: int | None = None) -> TabularDataset:
    """Creates a TabularDataset from columns.

    Each column is a list, an array, or a callable ``f(i)`` computing row ``i``
    (then the length comes from the other columns or ``size``).

    Args:
        data: One column (a unary dataset with key ``'_0'``); a pair
            ``(key, column)`` (a unary dataset with that key); a tuple of
            columns or ``(key, column)`` pairs (tuple mode; unnamed columns are
            called ``'_<position>'``); or a dict ``{key: column}`` (dict mode).
        size: The length, needed when every column is a callable.

    Returns:
        TabularDataset: The table.
    """
    if _is_named(data):
        return _Columns((data[0],), [data[1]], None, size)
    if isinstance(data, dict):
        return _Columns(tuple(data), list(data.values()), dict, size)
    if isinstance(data, tuple):
        keys = []
        sources: list[Callable[..., Any] | Any] = []
        for position, item in enumerate(data):
            key, source = item if _is_named(item) else (f'_{position}', item)
            keys.append(key)
            sources.append(source)
        return _Columns(tuple(keys), sources, tuple, size)
    return _Columns(('_0',), [data], None, size)
