"""The master's iterator, its batches broadcast to every rank (ChainerMN's
``chainermn.iterators.multi_node_iterator``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy

from catena.dataset.iterator import Iterator
from catena.distributed.communicators.base import CommunicatorBase


@dataclasses.dataclass
class _Status:
    """What the other ranks learn of the master's iterator with each batch."""

    epoch: int = 0
    is_new_epoch: bool = False
    current_position: int = 0
    epoch_detail: float = 0.0
    previous_epoch_detail: float | None = None
    batch_size: int | None = None
    repeat: bool = True
    epoch_size: int | None = None

    @classmethod
    def of(cls, iterator: Any) -> _Status:
        order = _order_of(iterator)
        if order is not None:
            size: int | None = len(order)
        else:
            dataset: Any = getattr(iterator, 'dataset', None)
            size = len(dataset) if hasattr(dataset, '__len__') else None
        return cls(epoch=int(iterator.epoch), is_new_epoch=bool(iterator.is_new_epoch),
                   current_position=int(getattr(iterator, 'current_position', 0)),
                   epoch_detail=float(iterator.epoch_detail),
                   previous_epoch_detail=_optional_float(
                       getattr(iterator, 'previous_epoch_detail', None)),
                   batch_size=getattr(iterator, 'batch_size', None),
                   repeat=bool(getattr(iterator, 'repeat', True)), epoch_size=size)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _order_of(iterator: Any) -> numpy.ndarray | None:
    """The order of the current epoch of a catena (or Chainer-like) iterator, if it has one."""
    order = getattr(getattr(iterator, '_state', None), 'order', None)
    if order is None:
        order = getattr(iterator, '_order', None)
    return None if order is None else numpy.asarray(order)


def _copy(order: numpy.ndarray | None) -> numpy.ndarray | None:
    return None if order is None else order.copy()


def _serialize_value(serializer: Any, key: str, value: Any) -> Any:
    loaded = serializer(key, value)
    return value if loaded is None else loaded


def _check_communicator(communicator: Any) -> CommunicatorBase:
    if not isinstance(communicator, CommunicatorBase):
        raise TypeError(f'communicator must be a catena.distributed communicator, got '
                        f'{type(communicator).__name__}')
    return communicator


class _MultiNodeIterator(Iterator):
    """The master's iterator, its batches broadcast to the other ranks.

    On the master every attribute comes from the actual iterator; on the
    other ranks ``epoch``, ``is_new_epoch``, ``current_position``,
    ``epoch_detail``, ``previous_epoch_detail``, ``batch_size`` and
    ``repeat`` are the master's as of the last batch, and other attributes
    come from the local actual iterator (if any). The master's order of the
    current epoch travels with the first batch after it changes.
    """

    def __init__(self, actual_iterator: Any, communicator: CommunicatorBase,
                 rank_master: int) -> None:
        self.actual_iterator = actual_iterator
        self.communicator = communicator
        self.rank_master = rank_master
        self.is_master = communicator.rank == rank_master
        initial = None
        self._sent_order: numpy.ndarray | None = None
        if self.is_master:
            self._sent_order = _order_of(actual_iterator)
            initial = (_Status.of(actual_iterator), self._sent_order)
        self._initial, self._initial_order = communicator.bcast_obj(initial, root=rank_master)
        self._status = dataclasses.replace(self._initial)
        self._slave_order = _copy(self._initial_order)

    def __next__(self) -> Any:
        comm = self.communicator
        if self.is_master:
            actual = self.actual_iterator
            try:
                batch = next(actual)
            except StopIteration:
                message: Any = None
            else:
                order = _order_of(actual)
                changed = order is not self._sent_order
                self._sent_order = order
                message = (batch, _Status.of(actual), changed, order if changed else None)
            comm.bcast_obj(message, root=self.rank_master)
        else:
            message = comm.bcast_obj(None, root=self.rank_master)
        if message is None:
            raise StopIteration
        batch, self._status, changed, order = message
        if changed:
            self._slave_order = order
        return batch

    next = __next__

    def _attribute(self, name: str) -> Any:
        if self.is_master:
            return getattr(self.actual_iterator, name)
        return getattr(self._status, name)

    @property
    def epoch(self) -> int:
        return self._attribute('epoch')  # type: ignore[no-any-return]

    @property
    def is_new_epoch(self) -> bool:
        return self._attribute('is_new_epoch')  # type: ignore[no-any-return]

    @property
    def current_position(self) -> int:
        return self._attribute('current_position')  # type: ignore[no-any-return]

    @property
    def epoch_detail(self) -> float:
        return self._attribute('epoch_detail')  # type: ignore[no-any-return]

    @property
    def previous_epoch_detail(self) -> float | None:
        return self._attribute('previous_epoch_detail')  # type: ignore[no-any-return]

    @property
    def batch_size(self) -> int | None:
        return self._attribute('batch_size')  # type: ignore[no-any-return]

    @property
    def repeat(self) -> bool:
        return self._attribute('repeat')  # type: ignore[no-any-return]

    @property
    def _order(self) -> numpy.ndarray | None:
        """The order of the master's current epoch (None without one), as ChainerMN named it."""
        if self.is_master:
            return _order_of(self.actual_iterator)
        return self._slave_order

    def __getattr__(self, name: str) -> Any:
        if name in ('actual_iterator', 'is_master'):  # not set yet
            raise AttributeError(name)
        return getattr(self.actual_iterator, name)

    def reset(self) -> None:
        """Rewinds: the master resets its iterator, the others their copy of its status."""
        if self.is_master:
            self.actual_iterator.reset()
        else:
            self._status = dataclasses.replace(self._initial)
            self._slave_order = _copy(self._initial_order)

    def finalize(self) -> None:
        finalize = getattr(self.actual_iterator, 'finalize', None)
        if finalize is not None:
            finalize()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state, without communicating.

        The master saves its actual iterator. The other ranks save their
        copy of the master's status under the keys of an iterator of
        catena and ChainerMN (``current_position``, ``epoch``,
        ``is_new_epoch``, ``order`` when the master shuffles, and
        ``previous_epoch_detail``), so a plain iterator can load what any
        rank saved and they load what ChainerMN's ranks saved. A loaded
        order is kept for saving again only: the batches always come from
        the master. Load on every rank, each from what it saved.
        """
        if self.is_master:
            self.actual_iterator.serialize(serializer)
            return
        status = self._status
        position = int(_serialize_value(serializer, 'current_position',
                                        status.current_position))
        epoch = int(_serialize_value(serializer, 'epoch', status.epoch))
        is_new_epoch = bool(_serialize_value(serializer, 'is_new_epoch', status.is_new_epoch))
        order = self._slave_order
        if order is not None:
            order = self._serialize_order(serializer, order)
        size = status.epoch_size if order is None else len(order)
        detail = float(epoch) + (position / size if size else 0.0)
        previous = -1.0 if status.previous_epoch_detail is None else status.previous_epoch_detail
        try:
            previous = float(_serialize_value(serializer, 'previous_epoch_detail', previous))
        except KeyError:  # ChainerMN's ranks saved none: one batch before the position
            if epoch or position:
                batch = status.batch_size or 0
                previous = max(float(epoch) + ((position - batch) / size if size else 0.0), 0.0)
            else:
                previous = -1.0
        self._slave_order = order
        self._status = dataclasses.replace(
            status, epoch=epoch, is_new_epoch=is_new_epoch, current_position=position,
            epoch_detail=detail, previous_epoch_detail=None if previous < 0 else previous)

    @staticmethod
    def _serialize_order(serializer: Any, order: numpy.ndarray) -> numpy.ndarray:
        for key in ('order', '_order'):  # '_order': snapshots of older Chainer versions
            try:
                return numpy.asarray(_serialize_value(serializer, key, order))
            except KeyError:
                continue
        return order  # a snapshot without the order: keep the master's


def create_multi_node_iterator(actual_iterator: Any, communicator: CommunicatorBase,
                               rank_master: int = 0) -> Iterator:
    """Makes every rank get the batches of ``rank_master``'s iterator.

    The master draws each batch from ``actual_iterator`` and broadcasts it
    (pickled: the examples may be any picklable objects), together with the
    iterator's status: on every rank ``epoch``, ``is_new_epoch``,
    ``epoch_detail`` and so on follow the master, and iteration stops on
    all ranks when it stops on the master. Every rank must draw the same
    number of batches, in step. Creating the iterator is a collective call.

    Args:
        actual_iterator: The master's iterator (for example a
            :class:`~catena.iterators.SerialIterator`); on the other ranks
            it is not iterated (an iterator over
            :func:`~catena.distributed.create_empty_dataset` will do) and
            may be None.
        communicator: The communicator.
        rank_master: The rank whose iterator is used.

    Returns:
        The multi-node iterator.
    """
    comm = _check_communicator(communicator)
    if isinstance(rank_master, bool) or not isinstance(rank_master, int) \
            or not 0 <= rank_master < comm.size:
        raise ValueError(f'rank_master must be a rank in [0, {comm.size}), got '
                         f'{rank_master!r}')
    if comm.rank == rank_master and not isinstance(actual_iterator, Iterator):
        raise TypeError(f'actual_iterator must be a catena iterator on the master (rank '
                        f'{rank_master}), got {type(actual_iterator).__name__}')
    return _MultiNodeIterator(actual_iterator, comm, rank_master)


def _build_ctrl_msg(stop: bool, is_valid_data_type: bool, is_paired_dataset: bool,
                    is_new_epoch: bool, current_position: int) -> numpy.ndarray:
    """Encodes ChainerMN's per-batch control message as an int64 array.

    Args:
        stop: Whether the master's iterator stopped.
        is_valid_data_type: Whether the batch could be sent.
        is_paired_dataset: Whether each example is a tuple.
        is_new_epoch: The master's ``is_new_epoch``.
        current_position: The master's ``current_position``.
    """
    return numpy.array([stop, is_valid_data_type, is_paired_dataset, is_new_epoch,
                        current_position], dtype=numpy.int64)


def _parse_ctrl_msg(msg: Any) -> tuple[bool, bool, bool, bool, int]:
    """Decodes a message of :func:`_build_ctrl_msg` into its five fields."""
    values = numpy.asarray(msg).reshape(-1)
    if values.size != 5:
        raise ValueError(f'a control message has 5 fields, got {values.size}')
    stop, valid, paired, new_epoch, position = (int(v) for v in values)
    return bool(stop), bool(valid), bool(paired), bool(new_epoch), position
