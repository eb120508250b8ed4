"""``multi_node_snapshot``: one snapshot file per replica set of ranks (ChainerMN's
``chainermn.extensions._multi_node_snapshot``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from catena.distributed.communicators.base import CommunicatorBase
from catena.training import extension


def replica_sets_of(replica_sets: Any, size: int) -> list[list[int]]:
    """Expands ``replica_sets`` (see :func:`multi_node_snapshot`) into sorted lists of ranks.

    Raises:
        TypeError: For an entry that is neither a rank nor an iterable of ranks.
        ValueError: For a rank out of range, or a rank in two sets.
    """
    if isinstance(replica_sets, (int, numpy.integer)) or not isinstance(replica_sets,
                                                                         Iterable):
        raise TypeError(f'replica_sets must be a list of ranks or of iterables of ranks, got '
                        f'{type(replica_sets).__name__}')
    sets: list[list[int]] = []
    seen: set[int] = set()
    for entry in replica_sets:
        if isinstance(entry, (int, numpy.integer)) and not isinstance(entry, bool):
            members = [int(entry)]
        elif isinstance(entry, Iterable) and not isinstance(entry, (str, bytes)):
            members = [int(rank) for rank in entry]
        else:
            raise TypeError(f'each replica set must be a rank or an iterable of ranks, got '
                            f'{entry!r}')
        for rank in members:
            if not 0 <= rank < size:
                raise ValueError(f'replica_sets: rank {rank} is out of range for {size} ranks')
            if rank in seen:
                raise ValueError(f'replica_sets: rank {rank} is in more than one replica set')
            seen.add(rank)
        if members:
            sets.append(sorted(set(members)))
    rest = [rank for rank in range(size) if rank not in seen]
    if rest:
        sets.append(rest)
    return sets


def _parse_replica_sets(replica_sets: Any, size: int) -> list[set[int]]:
    """:func:`replica_sets_of` as sets of ranks (ChainerMN's name)."""
    return [set(ranks) for ranks in replica_sets_of(replica_sets, size)]


class _MultiNodeSnapshot(extension.Extension):
    """Runs a snapshot extension on the first rank of each replica set only.

    The wrapped snapshot's file names get the suffix ``.<r>``, ``r`` the
    first rank of this process's replica set, so all members of a set read
    the file that their first rank writes.
    """

    def __init__(self, comm: CommunicatorBase, snapshot: Any,
                 replica_sets: list[list[int]]) -> None:
        self.comm = comm
        self.snapshot = snapshot
        self.replica_sets = replica_sets
        mine = next(members for members in replica_sets if comm.rank in members)
        self.master = mine[0]
        self.is_master = comm.rank == self.master
        suffix = f'.{self.master}'
        filename = snapshot.filename
        if callable(filename):
            def named(trainer: Any, _inner: Any = filename) -> str:
                return f'{_inner(trainer)}{suffix}'
            snapshot.filename = named
        else:
            snapshot.filename = filename + suffix
        for attribute in ('trigger', 'priority'):
            if hasattr(snapshot, attribute):
                setattr(self, attribute, getattr(snapshot, attribute))

    @property
    def default_name(self) -> str:  # type: ignore[override]
        return 'multi_node_snapshot'

    def initialize(self, trainer: Any) -> None:
        """Initializes the snapshot on every rank (with autoload, each loads its set's file)."""
        self.snapshot.initialize(trainer)

    def __call__(self, trainer: Any) -> None:
        if self.is_master:
            self.snapshot(trainer)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def finalize(self) -> None:
        self.snapshot.finalize()


def multi_node_snapshot(comm: CommunicatorBase, snapshot: Any, replica_sets: Any) -> Any:
    """Wraps a snapshot extension so that each group of identical ranks writes one file.

    Ranks whose saved state is the same (replicas) form a *replica set*;
    only the first rank of each set writes the snapshot, under the
    snapshot's file name followed by ``.<first rank of the set>``, and with
    ``autoload`` every rank of the set loads that file when the trainer
    starts. So ranks whose trainers differ (rank 0 with the reporting
    extensions, the others without) each restore the right state, even
    after a restart with a different number of ranks, as long as the sets'
    first ranks stay the same.

    ``replica_sets`` is a list whose entries are a rank or an iterable of
    ranks; the ranks not listed form one more set. With 4 ranks: ``[0]``
    gives ``{0}, {1, 2, 3}``; ``[0, 1]`` gives ``{0}, {1}, {2, 3}``;
    ``[[0, 1], [2, 3]]`` gives ``{0, 1}, {2, 3}``; ``[]`` gives
    ``{0, 1, 2, 3}``.

    Args:
        comm: The communicator.
        snapshot: A snapshot extension from
            :func:`catena.training.extensions.snapshot` or
            :func:`~catena.training.extensions.snapshot_object` (its file name
            is changed in place).
        replica_sets: The replica sets, as above.

    Returns:
        The wrapping trainer extension (it takes the snapshot's trigger and
        priority).
    """
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')
    if not hasattr(snapshot, 'filename') or not callable(snapshot):
        raise TypeError(f'snapshot must be a snapshot extension (from '
                        f'catena.training.extensions.snapshot), got {type(snapshot).__name__}')
    return _MultiNodeSnapshot(comm, snapshot, replica_sets_of(replica_sets, comm.size))
