"""Setup for the catena.distributed tests.

Run them on several processes (every rank runs every test; the collectives
inside meet across ranks)::

    mpiexec -n 2 python -m pytest -p no:cacheprovider tests/distributed
    mpiexec -n 3 python -m pytest -p no:cacheprovider tests/distributed

(as root, Open MPI also wants ``--allow-run-as-root``; with more processes
than cores, ``--oversubscribe``). ``-p no:cacheprovider`` keeps the ranks from
writing pytest's cache at the same time.

A plain ``pytest tests/distributed`` runs the tests that need no MPI job (the
dummy communicator, packing, the abort-on-exception check that starts its
own mpiexec) and skips the MPI tests with the reason.

Every rank must collect the same tests in the same order, so nothing here
depends on the rank. Under mpiexec each test has a deadline: a test that
hangs (a collective some rank never reaches) dumps the stacks and exits,
and mpiexec then stops the job.
"""

from __future__ import annotations

import faulthandler

import pytest
from tests.distributed._helpers import HAS_MPI4PY, UNDER_MPIEXEC

TEST_DEADLINE_S = 120


@pytest.fixture(scope='session')
def mpi_world():
    """``MPI.COMM_WORLD`` of the job; the test is skipped outside an MPI job."""
    if not HAS_MPI4PY:
        from catena.distributed._mpi import INSTALL_HINT

        pytest.skip(f'mpi4py is not installed ({INSTALL_HINT})')
    if not UNDER_MPIEXEC:
        pytest.skip('needs an MPI job: mpiexec -n 2 python -m pytest -p no:cacheprovider '
                    'tests/distributed')
    from mpi4py import MPI

    return MPI.COMM_WORLD


@pytest.fixture(autouse=True)
def _deadline():
    if not UNDER_MPIEXEC:
        yield
        return
    faulthandler.dump_traceback_later(TEST_DEADLINE_S, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def pytest_report_header(config):
    if UNDER_MPIEXEC and HAS_MPI4PY:
        from mpi4py import MPI

        return f'catena.distributed: rank {MPI.COMM_WORLD.rank} of {MPI.COMM_WORLD.size}'
    return 'catena.distributed: not under mpiexec (MPI tests skip)'
