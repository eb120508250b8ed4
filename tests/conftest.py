"""Fixtures shared by every test folder: a loopback HTTP server and a private dataset root."""

import importlib.util
import os

import pytest

# catena-intel64 times oneDNN against NumPy under use_ideep='auto' and caches its
# decisions per machine: tests keep them in memory, out of the user's cache folder.
os.environ.setdefault('CATENA_IDEEP_CALIBRATION_CACHE', '0')

_spec = importlib.util.spec_from_file_location(
    '_catena_loopback_server', os.path.join(os.path.dirname(__file__), '_loopback_server.py'))
assert _spec is not None and _spec.loader is not None
_loopback = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_loopback)


@pytest.fixture
def server():
    """An HTTP server on 127.0.0.1 serving ``server.files`` (path -> bytes)."""
    srv = _loopback.LoopbackServer()
    yield srv
    srv.close()


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    """A fresh dataset root, with offline mode and the mirror setting cleared."""
    from catena.dataset import download

    old = download.get_dataset_root()
    download.set_dataset_root(str(tmp_path / 'root'))
    monkeypatch.delenv('CATENA_OFFLINE', raising=False)
    monkeypatch.delenv('CATENA_DATASET_MIRROR', raising=False)
    yield tmp_path / 'root'
    download.set_dataset_root(old)
