"""``dataset.astuple()`` and ``dataset.asdict()``: the same table in another mode."""

from __future__ import annotations

from typing import Any

from catena.dataset.tabular import tabular_dataset


class AsMode(tabular_dataset.TabularDataset):
    """``dataset`` whose examples are shaped as ``mode`` (``tuple`` or ``dict``)."""

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

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)
