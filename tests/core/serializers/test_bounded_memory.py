"""Compressed files stay bounded in memory: every loader that opens an NPZ checks sizes first.

The bombs here are honest: each member's header and zip sizes tell the truth
(a 1 MiB file that really inflates to 1 GiB of zeros). Peak memory is
measured with tracemalloc, which NumPy reports its buffers to.
"""

import io
import os
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import catena
import catena.links as L
from catena import training
from catena.dataset import download
from catena.serializers import (
    FileFormatError,
    KeyMismatchError,
    UnsafeFileError,
    _npz_reader,
    load_npz,
    save_npz,
)
from catena.training import extensions

BOUND = 64 << 20  # bytes: the most any of these loads may allocate
_BLOCK = 16 << 20


def npy_header(descr, shape):
    text = repr({'descr': descr, 'fortran_order': False, 'shape': shape}).encode('latin1')
    text += b' ' * ((64 - (10 + len(text) + 1) % 64) % 64) + b'\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text


def deflated_zeros_member(header, nbytes, with_crc=True):
    """Deflates ``header`` followed by ``nbytes`` zero bytes (a multiple of 16 MiB).

    One 16 MiB block of zeros is deflated after a full flush, so it refers to
    nothing before it, and repeated: the stream is valid without ever
    holding the inflated data. Returns (compressed bytes, CRC-32, size).
    """
    assert nbytes % _BLOCK == 0
    zeros = bytes(_BLOCK)
    first = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = first.compress(header) + first.flush(zlib.Z_FULL_FLUSH)
    block = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = block.compress(zeros) + block.flush(zlib.Z_FULL_FLUSH)
    count = nbytes // _BLOCK
    stored = head + body * count + b'\x03\x00'  # an empty final block
    crc = 0
    if with_crc:
        crc = zlib.crc32(header)
        for _ in range(count):
            crc = zlib.crc32(zeros, crc)
    return stored, crc, len(header) + nbytes


def zip64_archive(members):
    """A zip of (name, stored, crc, size, method) members, with ZIP64 sizes where needed."""
    out = io.BytesIO()
    central = []
    for name, stored, crc, size, method in members:
        offset = out.tell()
        encoded = name.encode()
        big = size >= 0xFFFFFFFF or len(stored) >= 0xFFFFFFFF
        extra = struct.pack('<HHQQ', 1, 16, size, len(stored)) if big else b''
        small_size = 0xFFFFFFFF if big else size
        small_stored = 0xFFFFFFFF if big else len(stored)
        out.write(struct.pack('<4sHHHHHIIIHH', b'PK\x03\x04', 45, 0, method, 0, 0x21, crc,
                              small_stored, small_size, len(encoded), len(extra)))
        out.write(encoded + extra + stored)
        central.append(struct.pack('<4sHHHHHHIIIHHHHHII', b'PK\x01\x02', 45, 45, 0, method, 0,
                                   0x21, crc, small_stored, small_size, len(encoded),
                                   len(extra), 0, 0, 0, 0, offset) + encoded + extra)
    start = out.tell()
    for entry in central:
        out.write(entry)
    out.write(struct.pack('<4sHHHHIIH', b'PK\x05\x06', 0, 0, len(central), len(central),
                          out.tell() - start, start, 0))
    return out.getvalue()


def plain_member(name, array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    data = buffer.getvalue()
    return (name, data, zlib.crc32(data), len(data), zipfile.ZIP_STORED)


@pytest.fixture(scope='module')
def gib_member():
    """'l1/W' declared float32 (268435456,): 1 GiB inflated from about 1 MiB."""
    header = npy_header('<f4', (1 << 28,))
    return deflated_zeros_member(header, 1 << 30)


@pytest.fixture(scope='module')
def bomb_bytes(gib_member):
    stored, crc, size = gib_member
    return zip64_archive([('l1/W.npy', stored, crc, size, zipfile.ZIP_DEFLATED)])


@pytest.fixture
def bomb(tmp_path, bomb_bytes):
    path = tmp_path / 'bomb.npz'
    path.write_bytes(bomb_bytes)
    return path


class Net(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 2)


def peak_of(function):
    """Runs ``function``; returns (its result or exception, peak bytes traced)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        try:
            outcome = function()
        except Exception as error:  # noqa: BLE001 - the caller checks it
            outcome = error
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_bomb_is_honest(bomb):
    assert bomb.stat().st_size < (1 << 20) + (64 << 10)
    with zipfile.ZipFile(bomb) as archive:
        info = archive.getinfo('l1/W.npy')
        assert info.file_size == 128 + (1 << 30)
        with archive.open(info) as stream:  # it really inflates: read its end
            stream.read(128)
            assert stream.read(1 << 20) == bytes(1 << 20)


def test_a_wanted_member_too_big_for_the_model_is_never_inflated(bomb):
    net = Net()
    before = net.l1.W.array.copy()
    error, peak = peak_of(lambda: load_npz(bomb, net, strict=False))
    assert isinstance(error, KeyMismatchError), error
    assert peak < BOUND, peak
    assert error.mismatched == [('l1/W', 'the file has float32 (268435456,), the object '
                                         'float32 (2, 3)')]
    np.testing.assert_array_equal(net.l1.W.array, before)


def test_a_wanted_member_of_another_kind_is_never_inflated(tmp_path):
    name, data, crc, size, method = plain_member(
        'W.npy', np.zeros((256, 256), np.complex64))
    path = tmp_path / 'complex.npz'
    # A wrong CRC: reading the data through would fail with FileFormatError instead.
    path.write_bytes(zip64_archive([(name, data, crc ^ 1, size, method)]))
    with pytest.raises(KeyMismatchError, match='cannot cast the file.s complex64'):
        load_npz(path, L.Linear(256, 256), strict=False)


def test_an_unwanted_six_gib_member_is_never_inflated(tmp_path):
    net = Net()
    save_npz(tmp_path / 'good.npz', net)
    header = npy_header('<f4', (6 << 28,))
    # Never inflated, so its CRC is never checked: computing it would take seconds.
    stored, crc, size = deflated_zeros_member(header, 6 << 30, with_crc=False)
    members = [plain_member('l1/W.npy', np.full((2, 3), 7, np.float32)),
               plain_member('l1/b.npy', np.full((2,), 8, np.float32)),
               ('extra/big.npy', stored, crc, size, zipfile.ZIP_DEFLATED)]
    path = tmp_path / 'six.npz'
    path.write_bytes(zip64_archive(members))
    assert path.stat().st_size < 8 << 20
    outcome, peak = peak_of(lambda: load_npz(path, net))
    assert outcome is None, outcome
    assert peak < BOUND, peak
    np.testing.assert_array_equal(net.l1.W.array, np.full((2, 3), 7, np.float32))
    np.testing.assert_array_equal(net.l1.b.array, np.full((2,), 8, np.float32))


def test_a_member_with_nothing_to_bound_it_is_refused_as_a_bomb(bomb):
    lazy = L.Linear(None, 2)  # W is uninitialized: any shape would load
    error, peak = peak_of(lambda: load_npz(bomb, lazy, path='l1/', strict=False))
    assert isinstance(error, UnsafeFileError), error
    assert peak < BOUND, peak
    message = str(error)
    assert 'bomb.npz' in message and 'l1/W' in message
    assert 'load_max_expansion' in message and 'CATENA_LOAD_MAX_EXPANSION' in message
    assert lazy.W.array is None


def test_the_expansion_bound_is_configurable(tmp_path):
    array = np.zeros((2048, 2048), np.float32)  # 16 MiB of zeros, about 16 KiB deflated
    path = tmp_path / 'zeros.npz'
    np.savez_compressed(path, x=array, y=array)
    # 32 MiB from 32 KiB: past 16 MiB plus 100 times 32 KiB.
    with pytest.raises(UnsafeFileError, match=r"zeros\.npz', member 'y\.npy'"):
        _npz_reader.read_npz(path)
    with catena.using_config('load_max_expansion', 1100.0):
        entries, _ = _npz_reader.read_npz(path)
    assert entries['y'].shape == (2048, 2048)
    np.testing.assert_array_equal(entries['y'], array)


def test_the_dataset_cache_loader_refuses_the_bomb_within_the_bound(bomb):
    error, peak = peak_of(lambda: download.load_npz_cache(str(bomb)))
    assert isinstance(error, UnsafeFileError), error
    assert peak < BOUND, peak
    assert 'delete it' in str(error)


def test_cache_or_load_file_refuses_the_bomb_within_the_bound(bomb):
    def creator(path):
        raise AssertionError('the file exists: nothing is created')

    error, peak = peak_of(
        lambda: download.cache_or_load_file(str(bomb), creator, download.load_npz_cache))
    assert isinstance(error, UnsafeFileError), error
    assert peak < BOUND, peak


def test_the_dataset_cache_loader_still_loads_good_files(tmp_path):
    path = tmp_path / 'cache.npz'
    np.savez_compressed(path, x=np.arange(10), y=np.ones((3, 4), np.float32))
    loaded = download.load_npz_cache(str(path))
    assert sorted(loaded) == ['x', 'y']
    np.testing.assert_array_equal(loaded['x'], np.arange(10))


def test_the_dataset_cache_loader_never_unpickles(tmp_path):
    path = tmp_path / 'cache.npz'
    np.savez(path, x=np.array([1, 'a'], dtype=object))
    with pytest.raises(UnsafeFileError, match='never unpickles'):
        download.load_npz_cache(str(path))


def _trainer(out):
    net = Net()
    optimizer = catena.optimizers.SGD()
    optimizer.setup(net)
    iterator = catena.iterators.SerialIterator([np.zeros(3, np.float32)], 1)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, (1, 'iteration'), out=str(out)), net


def test_snapshot_autoload_never_inflates_the_bomb(tmp_path, bomb_bytes):
    (tmp_path / 'model_iter_5').write_bytes(bomb_bytes)
    trainer, net = _trainer(tmp_path)
    before = net.l1.W.array.copy()
    snapshot = extensions.snapshot_object(net, 'model_iter_{.updater.iteration}',
                                          autoload=True)
    error, peak = peak_of(lambda: snapshot.initialize(trainer))
    assert isinstance(error, KeyMismatchError), error
    assert peak < BOUND, peak
    assert 'model_iter_5' in str(error)
    np.testing.assert_array_equal(net.l1.W.array, before)


def test_snapshot_autoload_of_a_trainer_never_inflates_the_bomb(tmp_path, gib_member):
    stored, crc, size = gib_member
    name = 'updater/model:main/l1/W.npy'
    (tmp_path / 'snapshot_iter_5').write_bytes(
        zip64_archive([(name, stored, crc, size, zipfile.ZIP_DEFLATED)]))
    trainer, net = _trainer(tmp_path)
    snapshot = extensions.snapshot(autoload=True)
    error, peak = peak_of(lambda: snapshot.initialize(trainer))
    assert isinstance(error, KeyMismatchError), error
    assert peak < BOUND, peak
    assert 'updater/model:main/l1/W' in str(error)


def test_a_lazy_read_of_a_corrupt_member_names_the_file(tmp_path):
    good = tmp_path / 'good.npz'
    save_npz(good, Net())
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo('l1/W.npy')
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[start + info.compress_size - 4:start + info.compress_size] = b'\xff' * 4
    path = tmp_path / 'flipped.npz'
    path.write_bytes(bytes(data))
    net = Net()
    before = net.l1.b.array.copy()
    with pytest.raises(FileFormatError, match=r'flipped\.npz'):
        load_npz(path, net)
    np.testing.assert_array_equal(net.l1.b.array, before)


def test_the_archive_closes_its_file(tmp_path):
    path = tmp_path / 'm.npz'
    save_npz(path, Net())
    load_npz(path, Net())
    os.replace(path, tmp_path / 'moved.npz')  # would fail on Windows if still open
    with _npz_reader.NpzArchive(str(tmp_path / 'moved.npz')) as archive:
        assert sorted(archive) == ['l1/W', 'l1/b']
        assert archive.declared('l1/W') == (np.dtype('float32'), (2, 3))
    with pytest.raises(ValueError, match='closed'):
        archive['l1/W']


# ------------------------------------------------------------------- HDF5


@pytest.fixture(scope='module')
def hdf5_bomb(tmp_path_factory):
    """'l1/W' and 'extra/big' declared float32 (67108864,): 256 MiB each, gzipped zeros."""
    h5py = pytest.importorskip('h5py')
    path = tmp_path_factory.mktemp('hdf5') / 'bomb.h5'
    chunk = 1 << 20
    zeros = np.zeros(chunk, np.float32)
    with h5py.File(path, 'w') as file:
        for name in ('l1/W', 'extra/big'):
            dataset = file.create_dataset(name, shape=(1 << 26,), dtype='f4',
                                          chunks=(chunk,), compression='gzip',
                                          compression_opts=9)
            for start in range(0, 1 << 26, chunk):
                dataset[start:start + chunk] = zeros
        file['l1/b'] = np.full((2,), 8, np.float32)
    assert path.stat().st_size < 2 << 20
    return path


def test_load_hdf5_never_reads_a_dataset_too_big_for_the_model(hdf5_bomb):
    net = Net()
    before = net.l1.W.array.copy()
    error, peak = peak_of(lambda: catena.serializers.load_hdf5(hdf5_bomb, net))
    assert isinstance(error, KeyMismatchError), error
    assert peak < BOUND, peak
    assert error.mismatched[0][0] == 'l1/W'
    np.testing.assert_array_equal(net.l1.W.array, before)


def test_load_hdf5_never_reads_an_unwanted_dataset(hdf5_bomb):
    net = Net()
    outcome, peak = peak_of(
        lambda: catena.serializers.load_hdf5(hdf5_bomb, net, ignore_names='l1/W'))
    assert outcome is None, outcome
    assert peak < BOUND, peak
    np.testing.assert_array_equal(net.l1.b.array, np.full((2,), 8, np.float32))


def test_load_hdf5_refuses_what_nothing_bounds(hdf5_bomb):
    lazy = L.Linear(None, 2)
    error, peak = peak_of(lambda: catena.serializers.load_hdf5(hdf5_bomb, lazy, path='l1/'))
    assert isinstance(error, UnsafeFileError), error
    assert peak < BOUND, peak
    assert 'load_max_expansion' in str(error)


@pytest.mark.parametrize('prefix', ['CATENA_', 'CHAINER_'])
def test_the_expansion_bound_comes_from_the_environment(prefix):
    code = 'import catena; print(catena.config.load_max_expansion)'
    env = {'PATH': '', prefix + 'LOAD_MAX_EXPANSION': '2000'}
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == '2000.0'
