"""Utilities shared by functions, links and users (``catena.utils``)."""

from __future__ import annotations

from catena.utils.array import force_array, force_type, size_of_shape, sum_to

__all__ = ['force_array', 'force_type', 'size_of_shape', 'sum_to']
