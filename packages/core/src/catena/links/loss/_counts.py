"""Checks the word ``counts`` of the sampling losses (BlackOut, NegativeSampling)."""

from __future__ import annotations

from typing import Any

import numpy

from catena.utils import _validate


def word_counts(who: str, counts: Any, dtype: Any = numpy.float32) -> Any:
    """Returns ``counts`` as a 1-d array of ``dtype`` after checking it.

    Raises:
        TypeError: If it is not a sequence of numbers.
        ValueError: If it is empty, not 1-d, or has a negative or non-finite
            entry or no positive one.
    """
    words = (f'{who}: counts must be a non-empty 1-d sequence of non-negative numbers with a '
             f'positive sum; got {_validate.show(counts)}')
    if isinstance(counts, (str, bytes)) or not hasattr(counts, '__len__'):
        raise TypeError(words)
    try:
        array = numpy.asarray(counts, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(words) from None
    if array.ndim != 1 or array.size == 0 or not numpy.isfinite(array).all() or \
            (array < 0).any() or not array.sum() > 0:
        raise ValueError(words)
    return array
