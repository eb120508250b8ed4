"""Subsets of a dataset and the split / cross-validation helpers."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from catena.dataset.dataset_mixin import DatasetMixin


class SubDataset(DatasetMixin):
    """An interval of a base dataset, optionally through a permutation.

    Example ``i`` (``i >= 0``) is ``dataset[order[start + i]]``, or
    ``dataset[start + i]`` without ``order``; a negative ``i`` counts from
    ``finish``.

    Args:
        dataset: The base dataset.
        start: The first position of the interval (inclusive).
        finish: The end of the interval (exclusive).
        order: A permutation of ``range(len(dataset))`` or None.
    """

    def __init__(self, dataset: Any, start: int, finish: int,
                 order: Any = None) -> None:
        if start < 0 or finish > len(dataset) or start > finish:
            raise ValueError(f'SubDataset: the interval [{start}, {finish}) does not fit a '
                             f'base dataset of length {len(dataset)}')
        if order is not None and len(order) != len(dataset):
            raise ValueError(f'SubDataset: order must have the length of the base dataset: '
                             f'len(order) = {len(order)}, len(dataset) = {len(dataset)}')
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        if not -self._size <= i < self._size:
            raise IndexError(f'SubDataset index {i} out of range (length {self._size})')
        index = self._start + i if i >= 0 else self._finish + i
        if self._order is not None:
            index = int(self._order[index])
        return self._dataset[index]


def _check_split_at(split_at: Any, n_examples: int) -> None:
    if isinstance(split_at, bool) or not isinstance(split_at, (int, numpy.integer)):
        raise TypeError(f'split_at must be an int, got {type(split_at).__name__}')
    if split_at < 0:
        raise ValueError(f'split_at must be non-negative, got {split_at}')
    if split_at > n_examples:
        raise ValueError(f'split_at ({split_at}) exceeds the dataset size ({n_examples})')


def split_dataset(dataset: Any, split_at: int,
                  order: Any = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset into two disjoint subsets that together cover it.

    Args:
        dataset: The dataset to split.
        split_at: The position at which to split.
        order: A permutation of the indices, or None.

    Returns:
        tuple: Subsets holding ``order[:split_at]`` and ``order[split_at:]``.
    """
    n_examples = len(dataset)
    _check_split_at(split_at, n_examples)
    return (SubDataset(dataset, 0, int(split_at), order),
            SubDataset(dataset, int(split_at), n_examples, order))


def split_dataset_random(dataset: Any, first_size: int,
                         seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset into two subsets at random.

    Args:
        dataset: The dataset to split.
        first_size: The size of the first subset.
        seed: Seed of the permutation; the same seed gives the same split.

    Returns:
        tuple: Two SubDatasets; the first holds ``first_size`` random examples.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(dataset: Any, n: int,
                    order: Any = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` subsets of ``len(dataset) // n`` examples each.

    Subset ``i`` holds ``order[i * m:(i + 1) * m]`` with ``m = len(dataset) // n``;
    the last ``len(dataset) % n`` examples belong to no subset.

    Args:
        dataset: The dataset to split.
        n: The number of subsets (positive).
        order: A permutation of the indices, or None.

    Returns:
        list: ``n`` SubDatasets.
    """
    if n <= 0:
        raise ValueError(f'split_dataset_n: n must be positive, got {n}')
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset: Any, n: int, seed: int | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` subsets at random (see :func:`split_dataset_n`).

    Args:
        dataset: The dataset to split.
        n: The number of subsets.
        seed: Seed of the permutation.

    Returns:
        list: ``n`` SubDatasets.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def _n_folds_argument(n_folds: int | None, kwargs: dict[str, Any]) -> int:
    if 'n_fold' in kwargs:
        warnings.warn('n_fold is deprecated; use n_folds', DeprecationWarning, stacklevel=3)
        if n_folds is not None:
            raise TypeError('give n_folds or n_fold, not both')
        n_folds = kwargs.pop('n_fold')
    if kwargs:
        raise TypeError(f'unexpected keyword arguments: {", ".join(sorted(kwargs))}')
    if n_folds is None:
        raise TypeError('n_folds is required')
    if n_folds <= 0:
        raise ValueError(f'n_folds must be positive, got {n_folds}')
    return int(n_folds)


def get_cross_validation_datasets(dataset: Any, n_folds: int | None = None,
                                  order: Any = None,
                                  **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Makes the ``n_folds`` training/test splits of k-fold cross validation.

    The (ordered) examples are cut into ``n_folds`` contiguous folds whose
    sizes differ by at most one (the later folds are the larger ones). The
    ``k``-th split tests on the ``k``-th fold counted from the end and trains
    on the other examples, starting with those after its test fold and
    wrapping around: for ``[1, 2, 3, 4, 5, 6]`` and three folds the splits
    are ``([1, 2, 3, 4], [5, 6])``, ``([5, 6, 1, 2], [3, 4])`` and
    ``([3, 4, 5, 6], [1, 2])``.

    Args:
        dataset: The dataset to split.
        n_folds: The number of folds.
        order: A permutation of the indices, or None.

    Returns:
        list: ``n_folds`` pairs ``(train, test)`` of SubDatasets.
    """
    n_folds = _n_folds_argument(n_folds, kwargs)
    whole = len(dataset)
    base = numpy.arange(whole) if order is None else numpy.asarray(order)
    borders = [whole * i // n_folds for i in range(n_folds + 1)]
    splits = []
    for k in range(n_folds, 0, -1):
        lo, hi = borders[k - 1], borders[k]
        fold_order = numpy.concatenate([base[hi:], base[:lo], base[lo:hi]])
        splits.append(split_dataset(dataset, whole - (hi - lo), fold_order))
    return splits


def get_cross_validation_datasets_random(dataset: Any, n_folds: int | None = None,
                                         seed: int | None = None,
                                         **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Like :func:`get_cross_validation_datasets` on a random permutation.

    Args:
        dataset: The dataset to split.
        n_folds: The number of folds.
        seed: Seed of the permutation.

    Returns:
        list: ``n_folds`` pairs ``(train, test)`` of SubDatasets.
    """
    n_folds = _n_folds_argument(n_folds, kwargs)
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)
