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

    @classmethod
    def of(cls, iterator: Any) -> _Status:
        return cls(epoch=int(iterator.epoch), is_new_epoch=bool(iterator.is_new_epoch),
                   current_position=int(getattr(iterator, 'current_position', 0)),
                   epoch_detail=float(iterator.epoch_detail),
                   previous_epoch_detail=_optional_float(
                       getattr(iterator, 'previous_epoch_detail', None)),
                   batch_size=getattr(iterator, 'batch_size', None),
                   repeat=bool(getattr(iterator, 'repeat', True)))


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


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
    come from the local actual iterator (if any).
    """

    def __init__(self, actual_iterator: Any, communicator: CommunicatorBase,
                 rank_master: int) -> None:
        self.actual_iterator = actual_iterator
        self.communicator = communicator
        self.rank_master = rank_master
        self.is_master = communicator.rank == rank_master
        status = _Status.of(actual_iterator) if self.is_master else None
        self._initial: _Status = communicator.bcast_obj(status, root=rank_master)
        self._status = dataclasses.replace(self._initial)

    def __next__(self) -> Any:
        comm = self.communicator
        if self.is_master:
            try:
                message: Any = (next(self.actual_iterator), _Status.of(self.actual_iterator))
            except StopIteration:
                message = None
            comm.bcast_obj(message, root=self.rank_master)
        else:
            message = comm.bcast_obj(None, root=self.rank_master)
        if message is None:
            raise StopIteration
        batch, self._status = message
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

    def __getattr__(self, name: str) -> Any:
        if name == 'actual_iterator':  # not set yet
            raise AttributeError(name)
        return getattr(self.actual_iterator, name)

    def reset(self) -> None:
        """Rewinds: the master resets its iterator, the others their copy of its status."""
        if self.is_master:
            self.actual_iterator.reset()
        else:
            self._status = dataclasses.replace(self._initial)

    def finalize(self) -> None:
        finalize = getattr(self.actual_iterator, 'finalize', None)
        if finalize is not None:
            finalize()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state, without communicating.

        The master saves its actual iterator; the other ranks save their copy
        of the master's status. Load on every rank, each from what it saved.
        """
        if self.is_master:
            self.actual_iterator.serialize(serializer)
            return
        status = self._status
        previous = -1.0 if status.previous_epoch_detail is None else status.previous_epoch_detail
        values = {
            'epoch': status.epoch, 'is_new_epoch': status.is_new_epoch,
            'current_position': status.current_position,
            'epoch_detail': status.epoch_detail, 'previous_epoch_detail': previous,
        }
        loaded = {}
        for key, value in values.items():
            result = serializer(key, value)
            loaded[key] = value if result is None else result
        previous_loaded = float(loaded['previous_epoch_detail'])
        self._status = dataclasses.replace(
            status, epoch=int(loaded['epoch']), is_new_epoch=bool(loaded['is_new_epoch']),
            current_position=int(loaded['current_position']),
            epoch_detail=float(loaded['epoch_detail']),
            previous_epoch_detail=None if previous_loaded < 0 else previous_loaded)


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
