"""``dataset.with_converter(converter)``: the same table with another :meth:`convert`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset.tabular import tabular_dataset


class WithConverter(tabular_dataset.TabularDataset):
    """``dataset`` whose :meth:`convert` calls ``converter`` on the fetched columns.

    ``converter`` gets the columns as positional arguments (tuple or unary
    mode) or keyword arguments (dict mode), like a transform.
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset,
                 converter: Callable[..., Any]) -> None:
        self._dataset = dataset
        self._converter = converter

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._dataset.mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        mode = self.mode
        if mode is tuple:
            return self._converter(*data)
        if mode is dict:
            return self._converter(**data)
        return self._converter(data)
