"""Downloads that stall are bounded in time; damaged cache files say how to get a fresh copy."""

import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import catena
from catena.dataset import download
from catena.serializers import FileFormatError


@pytest.fixture(params=['requests', 'urllib'])
def client(request, monkeypatch):
    if request.param == 'urllib':
        monkeypatch.setattr(download, '_requests', None)
    elif download._http_client() is None:
        pytest.skip('requests is not installed')
    return request.param


class SilentServer:
    """Accepts connections on 127.0.0.1 and never answers (optionally trickles bytes)."""

    def __init__(self, trickle=None):
        self.sock = socket.socket()
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.trickle = trickle
        self.connections = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f'http://127.0.0.1:{self.sock.getsockname()[1]}/data.bin'

    def _serve(self):
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                connection, _ = self.sock.accept()
            except OSError:
                continue
            self.connections.append(connection)
            if self.trickle is not None:
                threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection):
        try:
            connection.recv(4096)
            connection.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n')
            while not self.stop.is_set():
                connection.sendall(b'x')
                time.sleep(self.trickle)
        except OSError:
            pass

    def close(self):
        self.stop.set()
        self.thread.join(5)
        for connection in self.connections:
            connection.close()
        self.sock.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.close()


def test_the_limits_are_configuration_keys_with_defaults():
    assert catena.config.download_timeout == 30.0
    assert catena.config.download_deadline == 600.0


def test_a_server_that_never_answers_stops_at_the_deadline(silent, dataset_root, client):
    started = time.monotonic()
    with catena.using_config('download_timeout', 0.3), \
            catena.using_config('download_deadline', 1.0):
        with pytest.raises(download.DownloadError) as info:
            download.cached_download(silent.url, progress=False)
    elapsed = time.monotonic() - started
    assert elapsed < 3.0, elapsed
    message = str(info.value)
    assert silent.url in message
    for setting in ('download_timeout', 'CATENA_DOWNLOAD_TIMEOUT', 'download_deadline',
                    'CATENA_DOWNLOAD_DEADLINE'):
        assert setting in message


def test_each_try_waits_the_configured_timeout(silent, dataset_root, client):
    started = time.monotonic()
    with catena.using_config('download_timeout', 0.2), \
            catena.using_config('download_deadline', 60.0):
        with pytest.raises(download.DownloadError, match='did not answer in time') as info:
            download.cached_download(silent.url, progress=False)
    elapsed = time.monotonic() - started
    assert elapsed < 5.0, elapsed  # 5 tries of 0.2 s plus back-off, not 5 x 60 s
    assert 'now 0.2 s' in str(info.value)


def test_a_trickling_server_stops_at_the_deadline(dataset_root, client):
    server = SilentServer(trickle=0.05)
    try:
        started = time.monotonic()
        with catena.using_config('download_timeout', 5.0), \
                catena.using_config('download_deadline', 1.0):
            with pytest.raises(download.DownloadError, match='overall deadline of 1 s'):
                download.cached_download(server.url, progress=False)
        assert time.monotonic() - started < 4.0
    finally:
        server.close()


@pytest.mark.parametrize('prefix', ['CATENA_', 'CHAINER_'])
def test_the_limits_come_from_the_environment(prefix):
    code = 'import catena; print(catena.config.download_timeout, catena.config.download_deadline)'
    env = {'PATH': '', prefix + 'DOWNLOAD_TIMEOUT': '2.5', prefix + 'DOWNLOAD_DEADLINE': '7'}
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ['2.5', '7.0']


def test_a_bad_limit_in_the_environment_names_the_variable():
    env = {'PATH': '', 'CATENA_DOWNLOAD_TIMEOUT': '-1'}
    result = subprocess.run([sys.executable, '-c', 'import catena'], env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert 'CATENA_DOWNLOAD_TIMEOUT' in result.stderr
    assert 'positive number' in result.stderr


# ------------------------------------------------------------- damaged caches


def _cache_file(tmp_path):
    path = tmp_path / 'mnist' / 'train.npz'
    path.parent.mkdir()
    np.savez_compressed(path, x=np.arange(1000), y=np.ones(1000))
    return path


@pytest.mark.parametrize('keep', [0.3, 0.9])
def test_a_truncated_cache_file_is_named_with_how_to_refresh_it(tmp_path, keep):
    path = _cache_file(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])

    def creator(_):
        raise AssertionError('the file exists: nothing is created')

    with pytest.raises(FileFormatError) as info:
        download.cache_or_load_file(str(path), creator, download.load_npz_cache)
    message = str(info.value)
    assert str(path) in message
    assert 'truncated or corrupt' in message
    assert 'delete it and run again' in message


def test_a_truncated_cache_file_read_by_another_loader_is_named(tmp_path):
    path = _cache_file(tmp_path)
    path.write_bytes(path.read_bytes()[:100])

    def numpy_loader(name):
        with np.load(name) as archive:
            return dict(archive)

    with pytest.raises(FileFormatError, match='delete it and run again') as info:
        download.cache_or_load_file(str(path), None, numpy_loader)
    assert str(path) in str(info.value)
