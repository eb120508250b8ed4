"""Differentiable functions (``catena.functions``, imported as ``F``)."""

from __future__ import annotations

from catena.functions.activation.tanh import tanh
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.get_item import get_item
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.math.basic_math import absolute  # also defines Variable's operators
from catena.functions.math.exponential import exp, log
from catena.functions.math.sum import sum  # noqa: A004
from catena.functions.math.sum_to import sum_to

__all__ = [
    'absolute', 'broadcast_to', 'exp', 'get_item', 'log', 'reshape', 'sum', 'sum_to', 'tanh',
    'transpose',
]
