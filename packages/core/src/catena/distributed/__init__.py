"""Distributed data-parallel training over MPI (ChainerMN's API).

Start one process per worker with ``mpiexec -n N python train.py``; each one
creates a communicator, wraps its optimizer and takes its part of the data::

    import catena.distributed as dist

    comm = dist.create_communicator('flat')          # 'naive', 'flat', 'dummy'
    optimizer = dist.create_multi_node_optimizer(catena.optimizers.Adam(), comm)
    optimizer.setup(model)
    train = dist.scatter_dataset(train if comm.rank == 0 else None, comm, shuffle=True)

MPI comes from mpi4py (``pip install './packages/core[mpi]'``, in a catena
checkout, installs mpi4py and the Open MPI wheel). Importing this package does
not import mpi4py; creating an MPI communicator does, and also installs
:mod:`global_except_hook`.
"""

from __future__ import annotations

from catena.distributed import extensions, functions, global_except_hook, iterators, links
from catena.distributed.communicators import (
    CommunicatorBase,
    DummyCommunicator,
    FlatCommunicator,
    MpiCommunicatorBase,
    NaiveCommunicator,
    communicator_names,
    create_communicator,
)
from catena.distributed.datasets import create_empty_dataset, scatter_dataset, scatter_index
from catena.distributed.evaluator import GenericMultiNodeEvaluator, create_multi_node_evaluator
from catena.distributed.extensions import MultiNodeEarlyStoppingTrigger, ObservationAggregator
from catena.distributed.extensions.checkpoint import create_multi_node_checkpointer
from catena.distributed.iterators import create_multi_node_iterator, create_synchronized_iterator
from catena.distributed.links import (
    MultiNodeBatchNormalization,
    MultiNodeChainList,
    MultiNodeNStepRNN,
    create_mnbn_model,
    create_multi_node_n_step_rnn,
)
from catena.distributed.optimizers import create_multi_node_optimizer
from catena.distributed.utils import local_rank_zero_first

__all__ = [
    'CommunicatorBase', 'DummyCommunicator', 'FlatCommunicator', 'GenericMultiNodeEvaluator',
    'MpiCommunicatorBase', 'MultiNodeBatchNormalization', 'MultiNodeChainList',
    'MultiNodeEarlyStoppingTrigger', 'MultiNodeNStepRNN', 'NaiveCommunicator',
    'ObservationAggregator', 'communicator_names', 'create_communicator',
    'create_empty_dataset', 'create_mnbn_model', 'create_multi_node_checkpointer',
    'create_multi_node_evaluator', 'create_multi_node_iterator',
    'create_multi_node_n_step_rnn', 'create_multi_node_optimizer',
    'create_synchronized_iterator', 'extensions', 'functions', 'global_except_hook',
    'iterators', 'links', 'local_rank_zero_first', 'scatter_dataset', 'scatter_index',
]
