"""Batched indexing that also works on plain Python sequences."""

from __future__ import annotations

from typing import Any

import numpy


def is_batch_index(index: Any) -> bool:
    """Whether ``index`` selects several examples (a slice, list or index array)."""
    return isinstance(index, (slice, list, numpy.ndarray))


def take(dataset: Any, index: Any) -> Any:
    """``dataset[index]``; for a list or array index on a Python sequence, one by one."""
    if isinstance(index, (list, numpy.ndarray)) and isinstance(dataset, (list, tuple)):
        return [dataset[int(i)] for i in index]
    return dataset[index]
