import hashlib
import os
import socket
import subprocess
import sys
import textwrap

import numpy
import pytest

from catena.dataset import download

PAYLOAD = bytes(range(256)) * 2048  # 512 KiB: several chunks
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture(params=['requests', 'urllib'])
def client(request, monkeypatch):
    if request.param == 'urllib':
        monkeypatch.setattr(download, '_requests', None)
    elif download._http_client() is None:
        pytest.skip('requests is not installed')
    return request.param


def _cache_files(root):
    d = root / '_dl_cache'
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_dataset_root_env_and_setter(tmp_path, monkeypatch):
    monkeypatch.setenv('CATENA_DATASET_ROOT', str(tmp_path / 'a'))
    assert download._default_root() == str(tmp_path / 'a')
    monkeypatch.delenv('CATENA_DATASET_ROOT')
    monkeypatch.setenv('CHAINER_DATASET_ROOT', str(tmp_path / 'b'))
    assert download._default_root() == str(tmp_path / 'b')
    monkeypatch.delenv('CHAINER_DATASET_ROOT')
    assert download._default_root() == os.path.join(
        os.path.expanduser('~'), '.catena', 'dataset')
    old = download.get_dataset_root()
    try:
        download.set_dataset_root(str(tmp_path / 'c'))
        assert download.get_dataset_root() == str(tmp_path / 'c')
        path = download.get_dataset_directory('x/y', create_directory=False)
        assert path == os.path.join(str(tmp_path / 'c'), 'x/y')
        assert not os.path.exists(path)
        assert os.path.isdir(download.get_dataset_directory('x/y'))
    finally:
        download.set_dataset_root(old)


def test_good_file(server, dataset_root, client):
    server.files['/good.bin'] = PAYLOAD
    url = server.base + '/good.bin'
    path = download.cached_download(url, sha256=SHA, progress=False)
    with open(path, 'rb') as f:
        assert f.read() == PAYLOAD
    assert path == os.path.join(str(dataset_root), '_dl_cache',
                                hashlib.md5(url.encode()).hexdigest())
    # A second call uses the cache: no new request.
    assert download.cached_download(url, sha256=SHA) == path
    assert server.hits['/good.bin'] == 1
    assert not [n for n in _cache_files(dataset_root) if n.endswith('.part')]


def test_positional_signature_without_checksum_records_sha256(server, dataset_root):
    server.files['/plain.txt'] = b'hello'
    path = download.cached_download(server.base + '/plain.txt')
    with open(path + '.sha256') as f:
        assert f.read().strip() == hashlib.sha256(b'hello').hexdigest()
    # The recorded SHA-256 is checked before each later use.
    with open(path, 'wb') as f:
        f.write(b'tampered')
    with pytest.raises(download.DownloadError, match='SHA-256'):
        download.cached_download(server.base + '/plain.txt')


def test_wrong_checksum_is_rejected_and_not_cached(server, dataset_root, client):
    server.files['/bad.bin'] = PAYLOAD
    url = server.base + '/bad.bin'
    with pytest.raises(download.DownloadError, match='SHA-256 mismatch') as e:
        download.cached_download(url, sha256='0' * 64)
    assert url in str(e.value)
    assert _cache_files(dataset_root) == [
        hashlib.md5(url.encode()).hexdigest() + '.lock']
    # MD5-pinned files are rejected the same way.
    with pytest.raises(download.DownloadError, match='MD5 mismatch'):
        download.cached_download(url, md5='0' * 32)
    assert all(n.endswith('.lock') for n in _cache_files(dataset_root))


@pytest.mark.parametrize('ranges', [True, False])
def test_truncated_transfer_is_resumed_or_retried(server, dataset_root, client, ranges):
    server.files['/trunc.bin'] = PAYLOAD
    server.httpd.ranges = ranges
    server.httpd.truncate_first['/trunc.bin'] = 1
    url = server.base + '/trunc.bin'
    path = download.cached_download(url, sha256=SHA)
    with open(path, 'rb') as f:
        assert f.read() == PAYLOAD
    assert server.hits['/trunc.bin'] == 2
    if ranges:
        assert server.httpd.range_requests == [('/trunc.bin', f'bytes={len(PAYLOAD) // 2}-')]
    else:
        assert server.httpd.range_requests == []


def test_partial_file_from_earlier_run_is_resumed(server, dataset_root, client):
    server.files['/part.bin'] = PAYLOAD
    url = server.base + '/part.bin'
    cache = download._cache_path(url)
    with open(cache + '.part', 'wb') as f:
        f.write(PAYLOAD[:1000])
    path = download.cached_download(url, sha256=SHA)
    with open(path, 'rb') as f:
        assert f.read() == PAYLOAD
    assert server.httpd.range_requests == [('/part.bin', 'bytes=1000-')]


def test_server_down_names_url(dataset_root, client, monkeypatch):
    monkeypatch.setattr(download, '_RETRIES', 2)
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    url = f'http://127.0.0.1:{port}/missing.bin'
    with pytest.raises(download.DownloadError) as e:
        download.cached_download(url, sha256=SHA)
    assert url in str(e.value)
    assert all(n.endswith('.lock') for n in _cache_files(dataset_root))


def test_http_error_names_url(server, dataset_root, client):
    url = server.base + '/nope.bin'
    with pytest.raises(download.DownloadError, match='404') as e:
        download.cached_download(url)
    assert url in str(e.value)


def test_two_processes_download_once(server, dataset_root):
    server.files['/shared.bin'] = PAYLOAD
    server.httpd.delay = 0.5
    url = server.base + '/shared.bin'
    script = textwrap.dedent(f'''
        from catena.dataset import download
        download.set_dataset_root({str(dataset_root)!r})
        path = download.cached_download({url!r}, sha256={SHA!r})
        print(path)
    ''')
    procs = [subprocess.Popen([sys.executable, '-c', script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert outs[0][0] == outs[1][0]
    assert server.hits['/shared.bin'] == 1


def test_offline_mode_opens_no_socket(dataset_root, monkeypatch):
    url = 'http://example.invalid/catena-test/offline-file.bin'
    download.register_known_file(url, 'catena-test', sha256=SHA)

    def no_socket(*args, **kwargs):
        raise AssertionError('a socket was opened in offline mode')

    monkeypatch.setattr(socket, 'socket', no_socket)
    monkeypatch.setattr(socket, 'create_connection', no_socket)
    monkeypatch.setenv('CATENA_OFFLINE', '1')
    with pytest.raises(download.DatasetOfflineError) as e:
        download.cached_download(url)
    msg = str(e.value)
    assert 'offline-file.bin' in msg
    assert SHA in msg
    assert url in msg
    assert download._cache_path(url) in msg


def test_offline_mode_uses_cache(server, dataset_root, monkeypatch):
    server.files['/cached.bin'] = PAYLOAD
    url = server.base + '/cached.bin'
    path = download.cached_download(url, sha256=SHA)
    monkeypatch.setenv('CATENA_OFFLINE', 'true')
    assert download.cached_download(url, sha256=SHA) == path


def test_mirror_replaces_origin_of_known_files(server, dataset_root, monkeypatch):
    url = 'http://example.invalid/orig/path/mirrored.bin'
    download.register_known_file(url, 'mykey', sha256=SHA)
    server.files['/mirror/mykey/mirrored.bin'] = PAYLOAD
    monkeypatch.setenv('CATENA_DATASET_MIRROR', server.base + '/mirror/')
    assert download.mirror_url(url) == server.base + '/mirror/mykey/mirrored.bin'
    assert download.mirror_url('http://other.invalid/x') == 'http://other.invalid/x'
    path = download.cached_download(url)
    # The cache key is the original URL.
    assert path == download._cache_path(url)
    with open(path, 'rb') as f:
        assert f.read() == PAYLOAD


def test_md5_pinned_file_records_sha256_on_first_use(server, dataset_root):
    server.files['/md5.bin'] = PAYLOAD
    url = server.base + '/md5.bin'
    path = download.cached_download(url, md5=hashlib.md5(PAYLOAD).hexdigest())
    with open(path + '.sha256') as f:
        assert f.read().strip() == SHA


def test_progress_bar_written_when_asked(server, dataset_root, capsys):
    server.files['/progress.bin'] = PAYLOAD
    download.cached_download(server.base + '/progress.bin', progress=True)
    err = capsys.readouterr().err
    assert 'progress.bin' in err and 'MiB' in err


def test_cache_or_load_file(tmp_path):
    path = str(tmp_path / 'sub' / 'data.npz')
    calls = []

    def creator(p):
        calls.append(p)
        assert p != path and os.path.dirname(os.path.dirname(p)) == os.path.dirname(path)
        numpy.savez_compressed(p, a=numpy.arange(3))
        return 'created'

    assert download.cache_or_load_file(path, creator, lambda p: 'loaded') == 'created'
    assert os.path.exists(path)
    assert download.cache_or_load_file(path, creator, lambda p: 'loaded') == 'loaded'
    assert len(calls) == 1
    numpy.testing.assert_array_equal(download.load_npz_cache(path)['a'], numpy.arange(3))
    # Only the file and its lock are left behind.
    assert sorted(os.listdir(tmp_path / 'sub')) == ['data.npz', 'data.npz.lock']


def test_cache_or_load_file_creator_failure_leaves_nothing(tmp_path):
    path = str(tmp_path / 'data.npz')

    def creator(p):
        raise RuntimeError('boom')

    with pytest.raises(RuntimeError, match='boom'):
        download.cache_or_load_file(path, creator, lambda p: None)
    assert os.listdir(tmp_path) == ['data.npz.lock']


def test_hand_placed_md5_only_file_is_checked(dataset_root, monkeypatch):
    url = 'http://example.invalid/catena-test/md5-only.bin'
    download.register_known_file(url, 'catena-test', md5=hashlib.md5(PAYLOAD).hexdigest())
    monkeypatch.setenv('CATENA_OFFLINE', '1')
    with pytest.raises(download.DatasetOfflineError) as e:
        download.cached_download(url)
    assert hashlib.md5(PAYLOAD).hexdigest() in str(e.value)
    path = download._cache_path(url)
    with open(path, 'wb') as f:
        f.write(PAYLOAD[:-1])
    with pytest.raises(download.DownloadError, match='MD5'):
        download.cached_download(url)
    with open(path, 'wb') as f:
        f.write(PAYLOAD)
    assert download.cached_download(url) == path
    with open(path + '.sha256') as f:
        assert f.read().strip() == SHA


def test_sha1_pinned_file_is_verified_and_records_sha256(server, dataset_root):
    server.files['/sha1.bin'] = PAYLOAD
    url = server.base + '/sha1.bin'
    path = download.cached_download(url, sha1=hashlib.sha1(PAYLOAD).hexdigest())
    with open(path + '.sha256') as f:
        assert f.read().strip() == SHA
    # From then on the recorded SHA-256 guards the cached copy.
    with open(path, 'wb') as f:
        f.write(PAYLOAD[:-1])
    with pytest.raises(download.DownloadError, match='SHA-256'):
        download.cached_download(url, sha1=hashlib.sha1(PAYLOAD).hexdigest())


def test_sha1_mismatch_deletes_the_download_and_names_url_and_hash(server, dataset_root):
    server.files['/bad-sha1.bin'] = PAYLOAD
    url = server.base + '/bad-sha1.bin'
    with pytest.raises(download.DownloadError) as e:
        download.cached_download(url, sha1='1' * 40)
    message = str(e.value)
    assert 'SHA-1 mismatch' in message and url in message and '1' * 40 in message
    assert hashlib.sha1(PAYLOAD).hexdigest() in message
    cache = os.path.dirname(download._cache_path(url))
    assert not [name for name in os.listdir(cache) if not name.endswith('.lock')]


def test_registered_sha1_is_used(server, dataset_root):
    server.files['/known-sha1.bin'] = PAYLOAD
    url = server.base + '/known-sha1.bin'
    digest = hashlib.sha1(PAYLOAD).hexdigest()
    entry = download.register_known_file(url, 'catena-test', sha1=digest)
    assert entry.weak_digests() == {'sha1': digest}
    assert os.path.exists(download.cached_download(url))
    download.register_known_file(url, 'catena-test', sha1='2' * 40)
    os.remove(download._cache_path(url))
    os.remove(download._cache_path(url) + '.sha256')
    with pytest.raises(download.DownloadError, match='SHA-1 mismatch'):
        download.cached_download(url)


def test_file_digest(tmp_path):
    path = tmp_path / 'payload.bin'
    path.write_bytes(PAYLOAD)
    assert download.file_digest(str(path), 'sha256') == SHA
    assert download.file_digest(str(path), 'sha1') == hashlib.sha1(PAYLOAD).hexdigest()
