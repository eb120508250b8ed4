"""``dataset.astuple()`` and ``dataset.asdict()``: the same table in another mode."""

from __future__ import annotations

from typing import Any

from catena.dataset.tabular import tabular_dataset
from catena.dataset.tabular.delegate_dataset import DelegateDataset


class AsMode(DelegateDataset):
    """``dataset`` whose examples are shaped as ``mode`` (``tuple`` or ``dict``)."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, mode: Any) -> None:
        super().__init__(dataset)
        self._mode = mode

    @property
    def mode(self) -> Any:
        return self._mode
