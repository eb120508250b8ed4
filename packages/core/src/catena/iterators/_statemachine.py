"""The position bookkeeping shared by all iterators."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy

from catena.iterators import order_samplers
from catena.utils import _validate


class IteratorState(NamedTuple):
    current_position: int
    epoch: int
    is_new_epoch: bool
    order: numpy.ndarray | None


def initial_state(n: int, order_sampler: Callable[..., Any] | None) -> IteratorState:
    order = None
    if order_sampler is not None:
        order = _checked_order(order_sampler(numpy.arange(n), 0), n)
    return IteratorState(0, 0, False, order)


def _checked_order(order: Any, n: int) -> numpy.ndarray:
    order = numpy.asarray(order)
    if order.ndim != 1 or (order.size and order.dtype.kind not in 'iu'):
        raise ValueError('the order sampler must return a 1-D array of integer indices, '
                         f'got shape {order.shape} and dtype {order.dtype}')
    if n and not order.size:
        raise ValueError('the order sampler returned an empty order for a dataset of '
                         f'length {n}')
    return order


def epoch_size(state: IteratorState, n: int) -> int:
    """The number of examples per epoch: the order's length, or the dataset's without one."""
    order = state.order
    return n if order is None else len(order)


def advance(state: IteratorState, batch_size: int, repeat: bool,
            order_sampler: Callable[..., Any] | None,
            n: int) -> tuple[IteratorState, numpy.ndarray | None]:
    """Returns the state after the next batch and the batch's indices (None at the end).

    An epoch visits the order once; an order sampler may return orders
    longer or shorter than the dataset (repeating or leaving out examples),
    but all of one length.
    """
    position, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    if n == 0:
        if repeat:
            raise ValueError('the dataset is empty; an iterator that repeats needs examples')
        return IteratorState(0, epoch + 1, True, order), None
    parts = []
    needed = batch_size
    is_new_epoch = False
    while needed > 0:
        size = n if order is None else len(order)
        end = min(position + needed, size)
        parts.append(numpy.arange(position, end) if order is None else order[position:end])
        needed -= end - position
        position = end
        if position == size:
            epoch += 1
            is_new_epoch = True
            position = 0
            if order_sampler is not None:
                order = _checked_order(order_sampler(order, size), n)
                if len(order) != size:
                    raise ValueError(f'the order sampler returned an order of length '
                                     f'{len(order)}; the previous order had {size} (the '
                                     'epoch size must stay the same)')
            if not repeat:
                break
    indices = parts[0] if len(parts) == 1 else numpy.concatenate(parts)
    return IteratorState(position, epoch, is_new_epoch, order), indices


def serialize_state(serializer: Any, state: IteratorState, previous_epoch_detail: float,
                    order_sampler: Any, batch_size: int,
                    n: int) -> tuple[IteratorState, float]:
    """Saves or loads ``state``; returns the (possibly loaded) state and previous detail.

    Snapshots of older Chainer versions are read too: the order under
    ``_order``, and no ``previous_epoch_detail`` (then estimated as one batch
    before the loaded position).
    """
    ser = order_samplers._serialize_value
    position = int(ser(serializer, 'current_position', state.current_position))
    epoch = int(ser(serializer, 'epoch', state.epoch))
    is_new_epoch = bool(ser(serializer, 'is_new_epoch', state.is_new_epoch))
    order = state.order
    if order is not None:
        try:
            order = numpy.array(ser(serializer, 'order', order.copy()))
        except KeyError:
            order = numpy.array(ser(serializer, '_order', order.copy()))
    loaded = IteratorState(position, epoch, is_new_epoch, order)
    try:
        previous = float(ser(serializer, 'previous_epoch_detail', previous_epoch_detail))
    except KeyError:
        size = epoch_size(loaded, n)
        previous = epoch + ((position - batch_size) / size if size else 0.0)
        previous = max(previous, 0.0) if (epoch or position) else -1.0
    serialize_sampler = getattr(order_sampler, 'serialize', None)
    if serialize_sampler is not None:
        try:
            child = serializer['order_sampler']
        except (KeyError, NotImplementedError):
            child = None  # no such group, or a flat serializer (Chainer's leave [] out)
        if child is not None:
            try:
                serialize_sampler(child)
            except KeyError:
                pass  # a snapshot without the sampler's state (older or Chainer-made)
    return loaded, previous


def check_arguments(who: str, dataset: Any, batch_size: Any, order_sampler: Any) -> int:
    """Checks an iterator's ``dataset``, ``batch_size`` and ``order_sampler``.

    Returns:
        int: The batch size.

    Raises:
        TypeError: If ``dataset`` lacks ``len()`` or indexing, ``batch_size``
            is not an int, or ``order_sampler`` is neither None nor callable.
        ValueError: If ``batch_size`` is below 1.
    """
    if not (hasattr(dataset, '__len__') and hasattr(dataset, '__getitem__')):
        raise TypeError(f'{who}: dataset must support len() and indexing (a list, an array '
                        f'or a dataset); got {_validate.show(dataset)}')
    _validate.function(who, 'order_sampler', order_sampler, optional=True)
    return _validate.integer(who, 'batch_size', batch_size, 1)


def make_order_sampler(shuffle: bool | None, order_sampler: Any) -> Any:
    """Resolves Chainer's ``shuffle`` / ``order_sampler`` arguments."""
    if shuffle is not None:
        if order_sampler is not None:
            raise ValueError('shuffle is not None and an order_sampler is given; '
                             'set shuffle=None to use the order sampler')
        return order_samplers.ShuffleOrderSampler() if shuffle else None
    if order_sampler is None:
        return order_samplers.ShuffleOrderSampler()
    return order_sampler


def copy_sampler(order_sampler: Any) -> Any:
    return copy.deepcopy(order_sampler)
