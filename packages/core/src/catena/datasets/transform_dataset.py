"""Dataset that applies a function to the examples of another."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset.dataset_mixin import DatasetMixin


class TransformDataset(DatasetMixin):
    """Dataset whose ``i``-th example is ``transform(dataset[i])``.

    The transform runs each time an example is read (useful for random
    augmentation).

    Args:
        dataset: The base dataset.
        transform: A callable that takes one example and returns the new one.
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any]) -> None:
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
