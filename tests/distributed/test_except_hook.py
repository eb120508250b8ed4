"""global_except_hook: one rank's uncaught exception stops the whole job."""

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest
from tests.distributed import _helpers

from catena.distributed import _mpi, global_except_hook


@pytest.fixture
def fresh_hook_state(monkeypatch):
    """sys.excepthook and the module's state, restored after the test."""
    def previous(*args):
        previous.calls.append(args)

    previous.calls = []
    monkeypatch.setattr(sys, 'excepthook', previous)
    monkeypatch.setattr(global_except_hook, '_previous_hook', None)
    monkeypatch.setattr(global_except_hook, '_removed_explicitly', False)
    monkeypatch.delenv(global_except_hook.OPT_OUT_ENV, raising=False)
    return previous


def test_add_and_remove(fresh_hook_state):
    global_except_hook.add_hook()
    global_except_hook.add_hook()  # a second call changes nothing
    installed = sys.excepthook
    global_except_hook.remove_hook()
    assert installed is global_except_hook._get_hook()
    assert sys.excepthook is fresh_hook_state


def test_environment_opt_out(fresh_hook_state, monkeypatch):
    monkeypatch.setenv(global_except_hook.OPT_OUT_ENV, '1')
    global_except_hook._add_hook_if_enabled()
    opted_out = global_except_hook.is_installed()
    monkeypatch.delenv(global_except_hook.OPT_OUT_ENV)
    global_except_hook._add_hook_if_enabled()
    assert not opted_out and global_except_hook.is_installed()


def test_remove_hook_is_not_undone_by_the_next_communicator(fresh_hook_state):
    global_except_hook.add_hook()
    global_except_hook.remove_hook()
    global_except_hook._add_hook_if_enabled()
    assert not global_except_hook.is_installed()


def test_without_running_mpi_the_previous_hook_reports(fresh_hook_state, monkeypatch):
    monkeypatch.setitem(sys.modules, 'mpi4py.MPI', None)
    global_except_hook.add_hook()
    error = ValueError('boom')
    sys.excepthook(ValueError, error, None)
    assert fresh_hook_state.calls == [(ValueError, error, None)]


def test_creating_an_mpi_communicator_installs_it(fresh_hook_state, mpi_world, monkeypatch):
    comm = _helpers.make_communicator('naive', mpi_world)
    installed = global_except_hook.is_installed()
    global_except_hook.remove_hook()
    monkeypatch.setattr(global_except_hook, '_removed_explicitly', False)
    monkeypatch.setenv(global_except_hook.OPT_OUT_ENV, '1')
    other = _helpers.make_communicator('flat', mpi_world)
    opted_out = not global_except_hook.is_installed()
    comm.finalize()
    other.finalize()
    assert installed and opted_out


RAISING_SCRIPT = '''
    import catena.distributed as dist

    comm = dist.create_communicator('naive')
    if comm.rank == 1:
        raise RuntimeError('failure on purpose')
    comm.mpi_comm.Barrier()  # without the hook, rank 0 would wait here forever
    print('rank 0 passed the barrier')
'''


def find_mpiexec():
    beside_python = pathlib.Path(sys.executable).parent / 'mpiexec'
    return str(beside_python) if beside_python.exists() else shutil.which('mpiexec')


def test_an_exception_on_one_rank_stops_mpiexec(tmp_path):
    if _helpers.UNDER_MPIEXEC:
        pytest.skip('starts its own mpiexec; runs in the single-process pytest run')
    if not _mpi.is_available():
        pytest.skip(f'mpi4py is not installed ({_mpi.INSTALL_HINT})')
    mpiexec = find_mpiexec()
    if mpiexec is None:
        pytest.skip('no mpiexec found beside the Python executable or on PATH')
    script = tmp_path / 'raise_on_rank_1.py'
    script.write_text(textwrap.dedent(RAISING_SCRIPT))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               OMPI_MCA_rmaps_base_oversubscribe='1',
               PRTE_MCA_rmaps_default_mapping_policy=':oversubscribe')
    env.pop(global_except_hook.OPT_OUT_ENV, None)
    # A hang would end in TimeoutExpired, which fails the test.
    result = subprocess.run([mpiexec, '-n', '2', sys.executable, str(script)],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode != 0
    assert 'failure on purpose' in result.stderr
    assert 'uncaught exception on rank 1 of 2' in result.stderr
    assert 'passed the barrier' not in result.stdout
