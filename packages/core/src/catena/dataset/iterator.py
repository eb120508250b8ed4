"""The interface of dataset iterators (``catena.dataset.Iterator``)."""

from __future__ import annotations

from typing import Any


class Iterator:
    """Base class of dataset iterators.

    An iterator yields mini-batches (lists of examples) through ``next()`` /
    ``__next__`` and keeps its position, so it is stateful and serializable.
    Concrete iterators provide these attributes:

    * ``batch_size``: the number of examples per mini-batch.
    * ``epoch``: the number of completed sweeps over the dataset.
    * ``epoch_detail``: the epoch as a float (``epoch`` plus the fraction of
      the current sweep already read).
    * ``previous_epoch_detail``: ``epoch_detail`` before the last ``next()``,
      or None before the first one.
    * ``is_new_epoch``: whether the last ``next()`` completed an epoch.
    * ``repeat``: whether the iterator loops over the dataset forever.

    Using an iterator in a ``with`` block calls :meth:`finalize` on exit.
    """

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Any:
        """Returns the next mini-batch; raises StopIteration at the end."""
        raise NotImplementedError(f'{type(self).__name__} must implement __next__')

    def next(self) -> Any:
        """Python-2 style alias of ``__next__``."""
        return self.__next__()

    def finalize(self) -> None:
        """Releases the resources (workers, threads) the iterator holds.

        The default does nothing. Calling it more than once is harmless.
        """

    def __enter__(self) -> Iterator:
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the iterator's state with ``serializer`` (default: nothing)."""
