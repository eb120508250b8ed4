"""Data every rank can compute for every other rank, and communicator factories."""

from __future__ import annotations

import importlib.util
import os

import numpy

# Environment variables that MPI launchers set in the processes they start.
_LAUNCHER_VARIABLES = ('OMPI_COMM_WORLD_SIZE', 'PMIX_RANK', 'PMI_SIZE', 'PMI_RANK',
                       'MPI_LOCALNRANKS', 'MV2_COMM_WORLD_SIZE')
UNDER_MPIEXEC = any(name in os.environ for name in _LAUNCHER_VARIABLES)
HAS_MPI4PY = importlib.util.find_spec('mpi4py') is not None

# Communicator variants the MPI tests run on. 'sim2' groups ranks two by two
# into simulated nodes, 'odd-even' groups them by parity (nodes whose ranks
# are not consecutive).
VARIANTS = {
    'naive': ('naive', {}),
    'flat': ('flat', {}),
    'flat-buckets': ('flat', {'bucket_size_mb': 64 / 2 ** 20}),
    'flat-unpacked': ('flat', {'bucket_size_mb': 0}),
    'naive-hierarchical': ('naive', {'hierarchical': True, 'node_name': 'sim2'}),
    'flat-hierarchical': ('flat', {'hierarchical': True, 'node_name': 'odd-even'}),
}


def node_name(scheme, rank):
    if scheme == 'sim2':
        return f'sim-node-{rank // 2}'
    if scheme == 'odd-even':
        return f'sim-node-{rank % 2}'
    raise ValueError(scheme)


def make_communicator(variant, world, **extra):
    import catena.distributed as dist

    name, options = VARIANTS[variant]
    options = dict(options, **extra)
    if 'node_name' in options:
        options['node_name'] = node_name(options['node_name'], world.rank)
    return dist.create_communicator(name, mpi_comm=world, **options)


def data_of(rank, shape, dtype=numpy.float64, salt=0):
    """A deterministic array that depends on the rank and the salt."""
    rng = numpy.random.default_rng([salt, rank])
    if numpy.dtype(dtype).kind in 'iu':
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def expected_topology(names, rank):
    """(intra_rank, intra_size, inter_rank, inter_size), computed independently."""
    mine = names[rank]
    node_order = []
    for name in names:
        if name not in node_order:
            node_order.append(name)
    same = [r for r, name in enumerate(names) if name == mine]
    return same.index(rank), len(same), node_order.index(mine), len(node_order)
