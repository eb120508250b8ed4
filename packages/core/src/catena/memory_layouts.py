"""Names of memory layouts of arrays (Chainer's ``chainer.memory_layouts``).

Chainer let a Variable hold its array in cuDNN's channel-last order
(``Variable(x, layout=CUDNN_CHANNEL_LAST_X)``) while shapes stayed
channel-first. catena keeps every array in the standard, channel-first
layout (``None``); the names below exist so that programs naming them
import, and the helpers convert shapes and arrays between the two orders.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    'CUDNN_CHANNEL_FIRST_W', 'CUDNN_CHANNEL_FIRST_X', 'CUDNN_CHANNEL_LAST_W',
    'CUDNN_CHANNEL_LAST_X', 'get_raw_shape', 'get_semantic_shape',
]

#: Inputs in channel-first order ``(N, C, H, W)``: the standard layout.
CUDNN_CHANNEL_FIRST_X = 'CUDNN_CHANNEL_FIRST_X'
#: Inputs in channel-last order ``(N, H, W, C)``.
CUDNN_CHANNEL_LAST_X = 'CUDNN_CHANNEL_LAST_X'
#: Filters in channel-first order ``(O, I, kH, kW)``: the standard layout.
CUDNN_CHANNEL_FIRST_W = 'CUDNN_CHANNEL_FIRST_W'
#: Filters in channel-last order ``(O, kH, kW, I)``.
CUDNN_CHANNEL_LAST_W = 'CUDNN_CHANNEL_LAST_W'

_CHANNEL_LAST = (CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)
_KNOWN = (None, CUDNN_CHANNEL_FIRST_X, CUDNN_CHANNEL_FIRST_W) + _CHANNEL_LAST


def _check(layout: Any) -> None:
    if layout not in _KNOWN:
        raise ValueError(f'unknown memory layout {layout!r}; expected None or one of '
                         f'{", ".join(name for name in _KNOWN if name)}')


def get_raw_shape(semantic_shape: tuple[int, ...], layout: Any) -> tuple[int, ...]:
    """Returns the shape of the array holding data of ``semantic_shape`` in ``layout``.

    Args:
        semantic_shape: The channel-first shape, e.g. ``(N, C, H, W)``.
        layout: None or one of the layout names of this module.

    Returns:
        The shape in memory order: ``(N, H, W, C)`` for a channel-last layout.

    Raises:
        ValueError: For an unknown layout.
    """
    _check(layout)
    shape = tuple(semantic_shape)
    if layout in _CHANNEL_LAST and len(shape) >= 2:
        return (shape[0],) + shape[2:] + (shape[1],)
    return shape


def get_semantic_shape(raw_shape: tuple[int, ...], layout: Any) -> tuple[int, ...]:
    """Returns the channel-first shape of an array of ``raw_shape`` stored in ``layout``.

    The inverse of :func:`get_raw_shape`.

    Raises:
        ValueError: For an unknown layout.
    """
    _check(layout)
    shape = tuple(raw_shape)
    if layout in _CHANNEL_LAST and len(shape) >= 2:
        return (shape[0], shape[-1]) + shape[1:-1]
    return shape


def _transpose_array(array: Any, src_layout: Any, dst_layout: Any) -> Any:
    """Returns ``array`` (stored in ``src_layout``) reordered into ``dst_layout``."""
    _check(src_layout)
    _check(dst_layout)
    src_last, dst_last = src_layout in _CHANNEL_LAST, dst_layout in _CHANNEL_LAST
    if src_last == dst_last or array.ndim < 2:
        return array
    ndim = array.ndim
    if dst_last:
        axes = (0,) + tuple(range(2, ndim)) + (1,)
    else:
        axes = (0, ndim - 1) + tuple(range(1, ndim - 1))
    return array.transpose(axes)
