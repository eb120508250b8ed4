"""``dataset.slice[rows, keys]``: a lazy sub-table."""

from __future__ import annotations

from typing import Any

import numpy

from catena.dataset.tabular import _index, tabular_dataset


def _key_position(keys: tuple[str, ...], key: Any) -> int:
    if isinstance(key, str):
        if key not in keys:
            raise KeyError(f'unknown key {key!r}; the keys are {keys}')
        return keys.index(key)
    if isinstance(key, (int, numpy.integer)) and not isinstance(key, bool):
        if not -len(keys) <= key < len(keys):
            raise IndexError(f'key position {key} out of range for keys {keys}')
        return int(key) % len(keys)
    raise TypeError(f'a key is a name or a position, got {key!r}')


class SliceHelper:
    """The object behind ``dataset.slice[rows]`` and ``dataset.slice[rows, keys]``."""

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise TypeError('use dataset.slice[rows] or dataset.slice[rows, keys]')
            rows, keys = args
        else:
            rows, keys = args, None
        return Slice(self._dataset, rows, keys)


class Slice(tabular_dataset.TabularDataset):
    """Some rows and keys of ``dataset``; reads pass the selection down.

    Args:
        dataset: The base table.
        rows: A slice, a list (or array) of positions, or a boolean mask.
        keys: None (all keys), a key name or position (the view is unary),
            or a tuple of them.
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset, rows: Any, keys: Any) -> None:
        self._dataset = dataset
        self._rows = _index.view_rows(rows, len(dataset))
        base_keys = dataset.keys
        self._key_indices: tuple[int, ...] | None
        if keys is None:
            self._key_indices = None
            self._keys = base_keys
            self._mode = dataset.mode
        elif isinstance(keys, tuple):
            self._key_indices = tuple(_key_position(base_keys, k) for k in keys)
            self._keys = tuple(base_keys[k] for k in self._key_indices)
            self._mode = dataset.mode or tuple
        else:
            self._key_indices = (_key_position(base_keys, keys),)
            self._keys = (base_keys[self._key_indices[0]],)
            self._mode = None

    def __len__(self) -> int:
        if self._rows is None:
            return len(self._dataset)
        return len(self._rows)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(_index.compose_rows(self._rows, indices),
                                          _index.compose_keys(self._key_indices, key_indices))

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)
