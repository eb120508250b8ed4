"""``dataset.join(*others)``: the columns of several tables of the same length."""

from __future__ import annotations

import itertools
from typing import Any

from catena.dataset.tabular import _index, tabular_dataset


class Join(tabular_dataset.TabularDataset):
    """The columns of ``datasets`` side by side.

    The mode is the first dataset's mode that is not None, else ``tuple``.

    Raises:
        ValueError: The datasets differ in length or share a key.
    """

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
        for d in self._datasets:
            if d.mode is not None:
                return d.mode
        return tuple

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            return tuple(itertools.chain.from_iterable(
                d.get_examples(indices, None) for d in self._datasets))
        wanted = _index.keys_by_owner(self._owner, key_indices)
        columns: dict[tuple[int, int], Any] = {}
        for i, local_keys in wanted.items():
            fetched = self._datasets[i].get_examples(indices, tuple(local_keys))
            columns.update(((i, k), column) for k, column in zip(local_keys, fetched))
        return tuple(columns[self._owner[k]] for k in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
