"""Default indexing for datasets (``catena.dataset.DatasetMixin``)."""

from __future__ import annotations

from typing import Any

import numpy


class DatasetMixin:
    """Gives a dataset integer, slice and fancy indexing from ``get_example``.

    A subclass implements ``__len__`` and ``get_example(i)``; ``dataset[i]``
    then returns one example, and ``dataset[a:b]``, ``dataset[[i, j]]`` or
    ``dataset[numpy_index_array]`` return a list of examples.
    """

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self.get_example(i) for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self) -> int:
        raise NotImplementedError(f'{type(self).__name__} must implement __len__')

    def get_example(self, i: int) -> Any:
        """Returns the ``i``-th example.

        Args:
            i: The index of the example.

        Returns:
            The example.
        """
        raise NotImplementedError(f'{type(self).__name__} must implement get_example')
