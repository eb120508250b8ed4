"""Temporaries left by killed snapshot writers are removed by the next write, and only those."""

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import catena
import catena.links as L
from catena import _atomic, training
from catena.training import extensions
from catena.training.extensions import snapshot_writers

pytestmark = pytest.mark.skipif(os.name != 'posix', reason='kills a writer with SIGKILL')


def killed_writer(outdir, name):
    """Runs a process that is killed in the middle of writing ``outdir/name``."""
    script = textwrap.dedent(f"""
        import os, signal
        from catena import _atomic
        with _atomic.atomic_named_path(os.path.join({str(outdir)!r}, {name!r})) as path:
            with open(path, 'wb') as f:
                f.write(b'partial snapshot')
                f.flush()
                os.kill(os.getpid(), signal.SIGKILL)
    """)
    result = subprocess.run([sys.executable, '-c', script], capture_output=True)
    assert result.returncode == -signal.SIGKILL, result.stderr


def temporaries(outdir):
    return sorted(name for name in os.listdir(outdir) if name.startswith('.tmp-'))


def fake_temporary(outdir, name, pid, host, age=0.0, marker=True):
    folder = outdir / name
    folder.mkdir()
    (folder / 'snapshot_iter_1').write_bytes(b'partial')
    if marker:
        marker_path = folder / _atomic.MARKER_NAME
        marker_path.write_text(f'catena atomic write\npid {pid}\nhost {host}\n')
        if age:
            then = time.time() - age
            os.utime(marker_path, (then, then))
    return folder


def dead_pid():
    process = subprocess.Popen([sys.executable, '-c', 'pass'])
    process.wait()
    return process.pid


def test_killed_writes_leave_temporaries_that_the_next_write_removes(tmp_path):
    for _ in range(3):
        killed_writer(tmp_path, 'snapshot_iter_1')
    assert len(temporaries(tmp_path)) == 3
    snapshot_writers.write_atomically('snapshot_iter_2', str(tmp_path), {'a': 1},
                                      lambda path, target: open(path, 'wb').close())
    assert temporaries(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ['snapshot_iter_2']


def test_a_trainer_snapshot_removes_what_killed_writers_left(tmp_path):
    killed_writer(tmp_path, 'snapshot_iter_1')
    model = L.Linear(2, 1)
    optimizer = catena.optimizers.SGD()
    optimizer.setup(model)
    iterator = catena.iterators.SerialIterator([np.zeros(2, np.float32)], 1)
    updater = training.updaters.StandardUpdater(
        iterator, optimizer, loss_func=lambda x: catena.functions.sum(model(x[None])))
    trainer = training.Trainer(updater, (1, 'iteration'), out=str(tmp_path))
    trainer.extend(extensions.snapshot(), trigger=(1, 'iteration'))
    trainer.run()
    assert temporaries(tmp_path) == []
    assert 'snapshot_iter_1' in os.listdir(tmp_path)


def test_folders_it_did_not_make_are_kept(tmp_path):
    unmarked = fake_temporary(tmp_path, '.tmp-snapshot_iter_1-user', dead_pid(),
                              socket.gethostname(), marker=False)
    odd = tmp_path / '.tmp-snapshot_iter_1-odd'
    odd.mkdir()
    (odd / _atomic.MARKER_NAME).write_text('something else\n')
    other_name = fake_temporary(tmp_path, 'tmp-snapshot_iter_1-visible', dead_pid(),
                                socket.gethostname())
    a_file = tmp_path / '.tmp-snapshot_iter_1-file'
    a_file.write_text('a file, not a folder')
    assert _atomic.remove_stale_temporaries(tmp_path) == []
    assert unmarked.exists() and odd.exists() and other_name.exists() and a_file.exists()


def test_live_writers_and_recent_foreign_ones_are_kept(tmp_path):
    own = fake_temporary(tmp_path, '.tmp-a-own', os.getpid(), socket.gethostname())
    parent = fake_temporary(tmp_path, '.tmp-a-parent', os.getppid(), socket.gethostname())
    foreign = fake_temporary(tmp_path, '.tmp-a-foreign', 1, 'another-host.example')
    assert _atomic.remove_stale_temporaries(tmp_path) == []
    assert own.exists() and parent.exists() and foreign.exists()


def test_old_foreign_and_dead_local_ones_are_removed(tmp_path):
    foreign = fake_temporary(tmp_path, '.tmp-a-foreign', 1, 'another-host.example',
                             age=2 * _atomic.STALE_AFTER)
    dead = fake_temporary(tmp_path, '.tmp-a-dead', dead_pid(), socket.gethostname())
    removed = _atomic.remove_stale_temporaries(tmp_path)
    assert sorted(removed) == sorted([str(foreign), str(dead)])
    assert not foreign.exists() and not dead.exists()


def test_nothing_is_removed_recursively_nor_through_links(tmp_path):
    precious = tmp_path / 'precious'
    precious.mkdir()
    (precious / 'data.txt').write_text('keep me')
    folder = fake_temporary(tmp_path, '.tmp-a-dead', dead_pid(), socket.gethostname())
    (folder / 'inner').mkdir()
    (folder / 'inner' / 'file').write_text('kept')
    os.symlink(precious, folder / 'link')
    _atomic.remove_stale_temporaries(tmp_path)
    assert (precious / 'data.txt').read_text() == 'keep me'
    assert (folder / 'inner' / 'file').exists()  # the folder stays, not empty
    assert not (folder / 'snapshot_iter_1').exists()
    assert not os.path.lexists(folder / 'link')


def test_a_missing_folder_is_no_error(tmp_path):
    assert _atomic.remove_stale_temporaries(tmp_path / 'missing') == []
