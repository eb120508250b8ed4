"""``dataset.transform(keys, f)`` and ``dataset.transform_batch(keys, f)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.dataset.tabular import _index, tabular_dataset

_UNKNOWN = object()


class Transform(tabular_dataset.TabularDataset):
    """The table made of what ``func`` returns for the rows of ``dataset``.

    ``func`` gets the values (``batch=False``: of one row; ``batch=True``:
    whole columns) as positional arguments (tuple or unary mode) or keyword
    arguments (dict mode). What it returns sets the mode: a tuple of values
    in key order, a dict by key, or (one key only) the bare value.

    Raises (when rows are read):
        ValueError: ``func`` returned a different kind of result than before,
            the wrong number of values, or (``batch=True``) columns of the
            wrong length.
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset, keys: Any,
                 func: Callable[..., Any], batch: bool) -> None:
        self._dataset = dataset
        self._keys = (keys,) if isinstance(keys, str) else tuple(keys)
        self._func = func
        self._batch = batch
        self._mode: Any = _UNKNOWN

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        if self._mode is _UNKNOWN:
            if len(self) == 0:
                return tuple if len(self._keys) != 1 else None
            self.get_examples([0], None)
        return self._mode

    def _call(self, values: Any) -> Any:
        mode = self._dataset.mode
        if mode is dict:
            return self._func(**dict(zip(self._dataset.keys, values)))
        if mode is tuple:
            return self._func(*values)
        return self._func(values[0])

    def _values(self, out: Any) -> tuple[Any, ...]:
        if isinstance(out, tuple):
            mode: Any = tuple
            values = out
        elif isinstance(out, dict):
            mode = dict
            missing = [k for k in self._keys if k not in out]
            if missing:
                raise ValueError(f'the transform returned a dict without the keys {missing}')
            values = tuple(out[k] for k in self._keys)
        else:
            mode = None
            values = (out,)
        if len(values) != len(self._keys):
            raise ValueError(f'the transform returned {len(values)} values for the keys '
                             f'{self._keys}; a tuple or a dict is needed for several keys')
        if self._mode is _UNKNOWN:
            self._mode = mode
        elif self._mode is not mode:
            raise ValueError(f'the transform returned a {_name(mode)} after a '
                             f'{_name(self._mode)}; it must always return the same kind')
        return values

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        columns = self._dataset.get_examples(indices, None)
        if self._batch:
            out = self._values(self._call(columns))
            n = _index.count(indices, len(self._dataset))
            for key, column in zip(self._keys, out):
                if len(column) != n:
                    raise ValueError(f'transform_batch returned {len(column)} rows for key '
                                     f'{key!r} where {n} were read')
        else:
            rows = [self._values(self._call(row)) for row in zip(*columns)]
            if rows:
                out = tuple(list(column) for column in zip(*rows))
            else:
                out = tuple([] for _ in self._keys)
        if key_indices is None:
            return out
        return tuple(out[k] for k in key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


def _name(mode: Any) -> str:
    return 'bare value' if mode is None else mode.__name__
