"""Utilities shared by functions, links and users (``catena.utils``)."""

from __future__ import annotations

from catena.utils.array import force_array, force_type, size_of_shape, sum_to
from catena.utils.sparse import CooMatrix, get_order, to_coo

__all__ = ['CooMatrix', 'force_array', 'force_type', 'get_order', 'size_of_shape', 'sum_to',
           'to_coo']
