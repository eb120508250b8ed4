"""``dataset.concat(*others)``: the rows of several tables with the same keys."""

from __future__ import annotations

import bisect
import itertools
from typing import Any

from catena.dataset.tabular import tabular_dataset


def _local_slice(rows: range, start: int, end: int) -> slice | None:
    """The part of ``rows`` inside ``[start, end)``, as a slice local to that span."""
    step = rows.step
    if step > 0:
        first = rows.start
        if first < start:
            first += -((first - start) // step) * step
        stop = min(rows.stop, end)
        if first >= stop:
            return None
        return slice(first - start, stop - start, step)
    first = rows.start
    if first >= end:
        first += -((first - end + 1) // step) * step
    stop = max(rows.stop, start - 1)
    if first <= stop:
        return None
    local_stop = stop - start
    return slice(first - start, local_stop if local_stop >= 0 else None, step)


def _merge(pieces: list[tuple[Any, ...]], width: int) -> tuple[Any, ...]:
    if not pieces:
        return tuple([] for _ in range(width))
    if len(pieces) == 1:
        return pieces[0]
    return tuple(list(itertools.chain.from_iterable(columns)) for columns in zip(*pieces))


class Concat(tabular_dataset.TabularDataset):
    """The rows of ``datasets``, one table after the other.

    Raises:
        ValueError: The datasets' keys differ (names or order).
    """

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        keys = datasets[0].keys
        for d in datasets[1:]:
            if d.keys != keys:
                raise ValueError(f'concat needs datasets with the same keys: {keys} != {d.keys}')
        self._datasets = datasets
        self._ends = list(itertools.accumulate(len(d) for d in datasets))
        self._starts = [0] + self._ends[:-1]

    def __len__(self) -> int:
        return self._ends[-1]

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> Any:
        return self._datasets[0].mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        width = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            return _merge([d.get_examples(None, key_indices) for d in self._datasets], width)
        if isinstance(indices, slice):
            return self._read_slice(range(len(self))[indices], key_indices, width)
        return self._read_list(indices, key_indices, width)

    def _read_slice(self, rows: range, key_indices: tuple[int, ...] | None,
                    width: int) -> tuple[Any, ...]:
        spans = list(zip(self._datasets, self._starts, self._ends))
        if rows.step < 0:
            spans.reverse()
        pieces = []
        for d, start, end in spans:
            local = _local_slice(rows, start, end)
            if local is not None:
                pieces.append(d.get_examples(local, key_indices))
        return _merge(pieces, width)

    def _read_list(self, indices: Any, key_indices: tuple[int, ...] | None,
                   width: int) -> tuple[Any, ...]:
        n = len(self)
        wanted: dict[int, tuple[list[int], list[int]]] = {}
        for position, row in enumerate(indices):
            if not -n <= row < n:
                raise IndexError(f'row {row} out of range for a dataset of length {n}')
            if row < 0:
                row += n
            which = bisect.bisect_right(self._ends, row)
            positions, local = wanted.setdefault(which, ([], []))
            positions.append(position)
            local.append(row - self._starts[which])
        if len(wanted) <= 1:
            pieces = [self._datasets[i].get_examples(local, key_indices)
                      for i, (_, local) in wanted.items()]
            return _merge(pieces, width)
        out: list[list[Any]] = [[None] * len(indices) for _ in range(width)]
        for i, (positions, local) in wanted.items():
            columns = self._datasets[i].get_examples(local, key_indices)
            for column, target in zip(columns, out):
                for position, value in zip(positions, column):
                    target[position] = value
        return tuple(out)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
