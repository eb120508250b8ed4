"""Dataset of tuples built from equal-length datasets."""

from __future__ import annotations

from typing import Any

from catena.datasets import _indexing


class TupleDataset:
    """Dataset whose ``i``-th example is ``(d[i] for d in datasets)`` as a tuple.

    Args:
        datasets: One or more datasets (arrays, lists, other datasets) of the
            same length.

    ``dataset[i]`` returns one tuple; a slice, list or index array returns a
    list of tuples.
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError('TupleDataset needs at least one dataset')
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(f'TupleDataset: dataset {i} has length {len(dataset)}, '
                                 f'dataset 0 has length {length}')
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index: Any) -> Any:
        batches = [_indexing.take(dataset, index) for dataset in self._datasets]
        if _indexing.is_batch_index(index):
            return [tuple(batch[i] for batch in batches) for i in range(len(batches[0]))]
        return tuple(batches)

    def __len__(self) -> int:
        return self._length
