"""Dataset of dicts built from named equal-length datasets."""

from __future__ import annotations

from typing import Any

from catena.datasets import _indexing


class DictDataset:
    """Dataset whose ``i``-th example is ``{key: d[i] for key, d in datasets.items()}``.

    Args:
        datasets: Named datasets of the same length (keyword arguments).

    ``dataset[i]`` returns one dict; a slice, list or index array returns a
    list of dicts.
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError('DictDataset needs at least one dataset')
        length = None
        for key, dataset in datasets.items():
            if length is None:
                length = len(dataset)
            elif len(dataset) != length:
                raise ValueError(f'DictDataset: dataset {key!r} has length {len(dataset)}, '
                                 f'the others have length {length}')
        self._datasets = datasets
        self._length = length or 0

    def __getitem__(self, index: Any) -> Any:
        batches = {key: _indexing.take(dataset, index) for key, dataset in self._datasets.items()}
        if _indexing.is_batch_index(index):
            length = len(next(iter(batches.values())))
            return [{key: batch[i] for key, batch in batches.items()} for i in range(length)]
        return batches

    def __len__(self) -> int:
        return self._length
