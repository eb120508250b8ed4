"""The column-oriented dataset interface (``catena.dataset.TabularDataset``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy

from catena import backend
from catena.dataset.dataset_mixin import DatasetMixin


def _as_array(column: Any) -> Any:
    if isinstance(column, backend.get_array_types()):
        return column
    return numpy.asarray(column)


class TabularDataset(DatasetMixin):
    """A dataset whose examples are rows of named columns.

    A subclass implements ``__len__``, :attr:`keys`, :attr:`mode` and
    :meth:`get_examples`. ``mode`` says how one example looks: ``tuple``
    (a tuple of values in key order), ``dict`` (``{key: value}``) or None
    (a dataset with one key whose examples are the bare values).

    Views (:attr:`slice`, :meth:`astuple`, :meth:`asdict`, :meth:`concat`,
    :meth:`join`, :meth:`transform`, :meth:`transform_batch`,
    :meth:`with_converter`) read their base lazily, and all but
    :meth:`with_converter` keep the base's :meth:`convert` (for
    :meth:`concat` and :meth:`join`, the first dataset's).
    """

    def __len__(self) -> int:
        raise NotImplementedError(f'{type(self).__name__} must implement __len__')

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of the columns."""
        raise NotImplementedError(f'{type(self).__name__} must implement keys')

    @property
    def mode(self) -> Any:
        """``tuple``, ``dict`` or None (one unnamed value per example)."""
        raise NotImplementedError(f'{type(self).__name__} must implement mode')

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        """Returns columns of several rows.

        Views call it on their base with the narrowest form that fits:
        None when every row is read, a slice when the rows are evenly
        spaced (``dataset.slice[a:b:c]``, slices of concatenations), and a
        list of row positions otherwise; likewise ``key_indices`` is None
        unless a view picks keys.

        Args:
            indices: None (every row), a slice, or a list of row positions.
            key_indices: The positions in :attr:`keys` of the wanted columns,
                or None for all.

        Returns:
            tuple: One column (a list or an array) per wanted key.
        """
        raise NotImplementedError(f'{type(self).__name__} must implement get_examples')

    # -- reading -------------------------------------------------------------
    def _shape(self, row: tuple[Any, ...]) -> Any:
        mode = self.mode
        if mode is tuple:
            return row
        if mode is dict:
            return dict(zip(self.keys, row))
        return row[0]

    def get_example(self, i: int) -> Any:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f'{type(self).__name__} index out of range (length {n})')
        return self._shape(tuple([col[0] for col in self.get_examples([i], None)]))

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, (slice, list, numpy.ndarray)):
            if not isinstance(index, slice):
                index = [int(i) for i in index]
            columns = self.get_examples(index, None)
            return [self._shape(row) for row in zip(*columns)]
        return self.get_example(index)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get_example(i)

    def fetch(self) -> Any:
        """Returns every column: a tuple, dict or single column, following :attr:`mode`."""
        columns = self.get_examples(None, None)
        if self.mode is tuple:
            return columns
        if self.mode is dict:
            return dict(zip(self.keys, columns))
        return columns[0]

    def convert(self, data: Any) -> Any:
        """Turns what :meth:`fetch` returned into arrays (see :meth:`with_converter`)."""
        if isinstance(data, tuple):
            return tuple(_as_array(d) for d in data)
        if isinstance(data, dict):
            return {key: _as_array(value) for key, value in data.items()}
        return _as_array(data)

    # -- views ---------------------------------------------------------------
    @property
    def slice(self) -> Any:
        """``dataset.slice[rows]`` or ``dataset.slice[rows, keys]``: a lazy sub-table.

        Rows are a slice, a list of indices or a boolean mask; keys are a key
        name or position (the view becomes unary) or a tuple of them.
        """
        return _slice.SliceHelper(self)

    def astuple(self) -> TabularDataset:
        """Returns a view whose examples are tuples."""
        return _asmode.AsMode(self, tuple)

    def asdict(self) -> TabularDataset:
        """Returns a view whose examples are dicts."""
        return _asmode.AsMode(self, dict)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Returns the rows of this dataset followed by those of ``datasets`` (same keys)."""
        return _concat.Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Returns the columns of this dataset and of ``datasets`` side by side."""
        return _join.Join(self, *datasets)

    def transform(self, keys: Any, transform: Callable[..., Any]) -> TabularDataset:
        """Returns a view that applies ``transform`` to each example.

        ``transform`` gets the example's values as positional arguments (tuple
        or unary mode) or keyword arguments (dict mode) and returns a tuple,
        a dict, or one value (when ``keys`` is a single name).
        """
        return _transform.Transform(self, keys, transform, batch=False)

    def transform_batch(self, keys: Any, transform_batch: Callable[..., Any]) -> TabularDataset:
        """Like :meth:`transform`, but ``transform_batch`` gets and returns whole columns."""
        return _transform.Transform(self, keys, transform_batch, batch=True)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """Returns a view whose :meth:`convert` calls ``converter`` (like a transform)."""
        return _with_converter.WithConverter(self, converter)


# The views subclass TabularDataset, so they are imported once it exists.
from catena.dataset.tabular import _asmode, _concat, _join, _slice, _transform, _with_converter  # noqa: E402
