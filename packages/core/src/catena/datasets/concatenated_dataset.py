"""Concatenation of datasets."""

from __future__ import annotations

import bisect
import itertools
from typing import Any

from catena.dataset.dataset_mixin import DatasetMixin


class ConcatenatedDataset(DatasetMixin):
    """Dataset that reads its base datasets one after another.

    Args:
        datasets: The datasets to concatenate, in order.

    Negative indices count from the end (Chainer raises IndexError for them).
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets
        self._ends = list(itertools.accumulate(len(d) for d in datasets))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def get_example(self, i: int) -> Any:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f'ConcatenatedDataset index out of range (length {n})')
        k = bisect.bisect_right(self._ends, i)
        start = self._ends[k - 1] if k else 0
        return self._datasets[k][i - start]
