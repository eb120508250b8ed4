"""``create_mnbn_model``: a copy of a model with multi-node batch normalization."""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators.base import CommunicatorBase
from catena.distributed.links.batch_normalization import (
    MultiNodeBatchNormalization,
    allreduce_for,
)
from catena.link import Chain, ChainList, Link
from catena.links.normalization.batch_normalization import BatchNormalization
from catena.links.normalization.batch_renormalization import BatchRenormalization


def _is_plain_batch_normalization(link: Link) -> bool:
    # Batch renormalization keeps extra statistics of its own and has no
    # multi-node form; a MultiNodeBatchNormalization is converted already.
    return isinstance(link, BatchNormalization) and not isinstance(
        link, (MultiNodeBatchNormalization, BatchRenormalization))


def _multi_node_copy(bn: BatchNormalization, comm: CommunicatorBase,
                     communication_backend: str) -> MultiNodeBatchNormalization:
    """A MultiNodeBatchNormalization with ``bn``'s settings, parameters and statistics."""
    size = None if bn.avg_mean is None else bn.avg_mean.shape
    initial_gamma = None if bn.gamma is None or bn.gamma.array is not None \
        else bn.gamma.initializer
    initial_beta = None if bn.beta is None or bn.beta.array is not None \
        else bn.beta.initializer
    mnbn = MultiNodeBatchNormalization(
        size, comm, decay=bn.decay, eps=bn.eps, dtype=bn._highprec_dtype,
        use_gamma=bn.gamma is not None, use_beta=bn.beta is not None,
        initial_gamma=initial_gamma, initial_beta=initial_beta,
        communication_backend=communication_backend, axis=bn.axis)
    if size is None:
        # Not initialized yet: keep the initializers of the statistics too.
        mnbn._initial_avg_mean = bn._initial_avg_mean
        mnbn._initial_avg_var = bn._initial_avg_var
    mnbn.to_device(bn.device)
    mnbn.copyparams(bn, copy_persistent=True)
    if not bn.update_enabled:
        mnbn.disable_update()
    return mnbn


def _replace_in_place(link: Link, convert: Any) -> Link:
    """Replaces, below ``link``, every plain BatchNormalization by ``convert(bn)``."""
    if _is_plain_batch_normalization(link):
        return convert(link)  # type: ignore[no-any-return]
    if isinstance(link, ChainList):
        # A Sequential also holds plain callables between its links: index its layers.
        for index, child in enumerate(list(link)):
            if isinstance(child, Link):
                new = _replace_in_place(child, convert)
                if new is not child:
                    link[index] = new
    elif isinstance(link, Chain):
        children = [(path[1:], child) for path, child in link.namedlinks(skipself=True)
                    if path.count('/') == 1]
        for name, child in children:
            new = _replace_in_place(child, convert)
            if new is not child:
                with link.init_scope():
                    setattr(link, name, new)
    return link


def create_mnbn_model(link: Link, comm: CommunicatorBase,
                      communication_backend: str = 'auto') -> Link:
    """Returns a copy of ``link`` whose batch normalizations share statistics across ranks.

    Every :class:`~catena.links.BatchNormalization` in the copy (at any depth
    of chains, chain lists and sequentials) is replaced by a
    :class:`MultiNodeBatchNormalization` with the same settings, parameters
    and running statistics. ``link`` itself is left unchanged.

    Args:
        link: The model.
        comm: The communicator of the ranks that share the statistics.
        communication_backend: ``'auto'``, ``'mpi'`` or ``'nccl'`` (see
            :class:`MultiNodeBatchNormalization`).

    Returns:
        The converted copy (a MultiNodeBatchNormalization when ``link`` is
        itself a BatchNormalization).
    """
    if not isinstance(link, Link):
        raise TypeError(f'link must be a catena.Link, got {type(link).__name__}')
    if not isinstance(comm, CommunicatorBase):
        raise TypeError(f'comm must be a catena.distributed communicator, got '
                        f'{type(comm).__name__}')
    allreduce_for(comm, communication_backend)  # checks the arguments before copying

    def convert(bn: BatchNormalization) -> MultiNodeBatchNormalization:
        return _multi_node_copy(bn, comm, communication_backend)

    if _is_plain_batch_normalization(link):
        return convert(link)  # type: ignore[arg-type]
    return _replace_in_place(link.copy('copy'), convert)
