"""A TabularDataset that forwards everything to another (for subclassing)."""

from __future__ import annotations

from typing import Any

from catena.dataset.tabular.tabular_dataset import TabularDataset


class DelegateDataset(TabularDataset):
    """Forwards ``len``, ``keys``, ``mode``, ``get_examples`` and ``convert`` to ``dataset``.

    Subclass it to give an existing table a class of its own.

    Args:
        dataset: The TabularDataset to delegate to.
    """

    def __init__(self, dataset: TabularDataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.dataset.keys

    @property
    def mode(self) -> Any:
        return self.dataset.mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self.dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self.dataset.convert(data)
