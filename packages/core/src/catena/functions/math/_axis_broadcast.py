"""What ``bias`` and ``scale`` share: placing an array's axes among another's."""

from __future__ import annotations

from typing import Any

from catena.function_node import _as_input_variable
from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.variable import Variable


def _expand_along(x: Any, y: Any, axis: int, what: str) -> Variable:
    """Returns ``y`` reshaped to broadcast against ``x``, its axes at ``axis``."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f'{what}: axis must be an int; got {axis!r}')
    try:
        x_ndim, y_ndim = x.ndim, y.ndim
    except AttributeError:
        _arguments.blame(what, x=x, y=y)
        raise
    if not 0 <= axis <= x_ndim - y_ndim:
        raise ValueError(f'{what}: axis must be in [0, x.ndim - y.ndim] = '
                         f'[0, {x.ndim - y.ndim}]; got axis={axis} for x of shape {x.shape} '
                         f'and y of shape {y.shape}')
    if tuple(x.shape[axis:axis + y.ndim]) != tuple(y.shape):
        raise ValueError(f'{what}: y.shape must equal x.shape[axis:axis + y.ndim]; got x of '
                         f'shape {x.shape}, y of shape {y.shape} and axis={axis}')
    shape = (1,) * axis + tuple(y.shape) + (1,) * (x.ndim - axis - y.ndim)
    return reshape(_as_input_variable(y), shape)
