"""``dataset.with_converter(converter)``: the same table with another :meth:`convert`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset.tabular import tabular_dataset
from catena.dataset.tabular.delegate_dataset import DelegateDataset


class WithConverter(DelegateDataset):
    """``dataset`` whose :meth:`convert` calls ``converter`` on the fetched columns.

    ``converter`` gets the columns as positional arguments (tuple or unary
    mode) or keyword arguments (dict mode), like a transform.
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset,
                 converter: Callable[..., Any]) -> None:
        super().__init__(dataset)
        self._converter = converter

    def convert(self, data: Any) -> Any:
        mode = self.mode
        if mode is tuple:
            return self._converter(*data)
        if mode is dict:
            return self._converter(**data)
        return self._converter(data)
