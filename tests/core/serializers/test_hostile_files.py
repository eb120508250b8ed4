"""A corpus of hostile and broken files, built here, that load_npz must refuse safely."""

import gzip
import io
import pathlib
import pickle
import struct
import zipfile
import zlib

import numpy as np
import pytest

import catena.links as L
from catena.serializers import (
    FileFormatError,
    UnsafeFileError,
    _npz_reader,
    load_npz,
    save_hdf5,
    save_npz,
)

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'


class CreatesFile:
    """Unpickling this opens (creates) a file: the marker of code run from a file."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, 'w'))


def npy_bytes(descr, shape, payload=b'', fortran=False, version=(1, 0), header=None):
    if header is None:
        text = repr({'descr': descr, 'fortran_order': fortran, 'shape': shape})
        header = text.encode('latin1')
        header += b' ' * ((64 - (12 + len(header) + 1) % 64) % 64) + b'\n'
    length = struct.pack('<H' if version == (1, 0) else '<I', len(header))
    return b'\x93NUMPY' + bytes(version) + length + header + payload


def npz_bytes(members, method=zipfile.ZIP_DEFLATED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def raw_zip(members):
    """A zip built by hand, so that its sizes can lie: (name, stored, crc, size, method)."""
    out = io.BytesIO()
    central = []
    for name, stored, crc, size, method in members:
        offset = out.tell()
        encoded = name.encode()
        out.write(struct.pack('<4sHHHHHIIIHH', b'PK\x03\x04', 20, 0, method, 0, 0x21, crc,
                              len(stored), size, len(encoded), 0))
        out.write(encoded + stored)
        central.append(struct.pack('<4sHHHHHHIIIHHHHHII', b'PK\x01\x02', 20, 20, 0, method, 0,
                                   0x21, crc, len(stored), size, len(encoded), 0, 0, 0, 0, 0,
                                   offset) + encoded)
    start = out.tell()
    for entry in central:
        out.write(entry)
    out.write(struct.pack('<4sHHHHIIH', b'PK\x05\x06', 0, 0, len(central), len(central),
                          out.tell() - start, start, 0))
    return out.getvalue()


def deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


@pytest.fixture
def write(tmp_path):
    def write_file(name, data):
        path = tmp_path / name
        path.write_bytes(data)
        return path
    return write_file


def load_into_linear(path):
    link = L.Linear(3, 2)
    before = link.W.array.copy(), link.b.array.copy()
    try:
        load_npz(path, link)
    finally:
        np.testing.assert_array_equal(link.W.array, before[0])
        np.testing.assert_array_equal(link.b.array, before[1])


# ------------------------------------------------------------------ pickles


def test_an_object_array_is_refused(write):
    buffer = io.BytesIO()
    np.savez(buffer, W=np.array([[1], 'two'], dtype=object))
    path = write('objects.npz', buffer.getvalue())
    with pytest.raises(UnsafeFileError, match=r"objects\.npz.*'W\.npy'.*never unpickles"):
        load_into_linear(path)


@pytest.mark.parametrize('shape', [(), (1,)])
@pytest.mark.parametrize('protocol', [2, 3, 4, 5])
def test_a_reduce_payload_is_refused_and_never_run(write, tmp_path, shape, protocol):
    marker = tmp_path / 'pwned'
    payload = pickle.dumps(CreatesFile(marker), protocol=protocol)
    path = write('evil.npz', npz_bytes({'W.npy': npy_bytes('|O', shape, payload)}))
    with pytest.raises(UnsafeFileError):
        load_into_linear(path)
    assert not marker.exists()
    pickle.loads(payload)  # the corpus is live: unpickling it does create the marker
    assert marker.exists()


def test_a_reduce_payload_in_a_member_that_is_not_selected_is_still_refused(write, tmp_path):
    marker = tmp_path / 'pwned'
    payload = pickle.dumps(CreatesFile(marker))
    members = {'W.npy': npy_bytes('<f4', (2, 3), bytes(24)),
               'b.npy': npy_bytes('<f4', (2,), bytes(8)),
               'other/x.npy': npy_bytes('|O', (), payload)}
    path = write('evil.npz', npz_bytes(members))
    with pytest.raises(UnsafeFileError):
        load_into_linear(path)
    with pytest.raises(UnsafeFileError):
        load_npz(path, L.Linear(3, 2), path='other/')
    assert not marker.exists()


def test_an_almost_none_payload_is_refused(write):
    none_payload = sorted(_npz_reader.NONE_PAYLOADS)[0]
    for payload in (none_payload + b'N.', none_payload[:-1] + b'\x00', pickle.dumps(None),
                    pickle.dumps(np.asarray(0, dtype=object))):
        path = write('almost.npz', npz_bytes({'W.npy': npy_bytes('|O', (), payload)}))
        with pytest.raises(UnsafeFileError):
            load_npz(path, L.Linear(None, 2), strict=False)


@pytest.mark.parametrize('payload', sorted(_npz_reader.NONE_PAYLOADS))
def test_exactly_numpys_pickle_of_none_loads_as_none(write, payload):
    path = write('none.npz', npz_bytes({'W.npy': npy_bytes('|O', (), payload),
                                        'b.npy': npy_bytes('<f4', (2,), bytes(8))}))
    link = L.Linear(None, 2)
    load_npz(path, link)
    assert link.W.array is None


def test_this_numpys_pickle_of_none_is_recognised():
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(None), allow_pickle=True)
    data = buffer.getvalue()
    assert data[128:] in _npz_reader.NONE_PAYLOADS
    assert pickle.dumps(np.asarray(None), protocol=3) in _npz_reader.NONE_PAYLOADS


def test_an_object_field_in_a_structured_dtype_is_refused(write):
    path = write('field.npz', npz_bytes({'W.npy': npy_bytes([('a', '<f4'), ('b', '|O')], (),
                                                            pickle.dumps((1.0, None)))}))
    with pytest.raises(UnsafeFileError):
        load_into_linear(path)


def test_a_raw_pickle_file_is_refused_unread(write, tmp_path):
    marker = tmp_path / 'pwned'
    path = write('model.pkl', pickle.dumps(CreatesFile(marker)))
    with pytest.raises(UnsafeFileError, match='pickle.*never unpickles'):
        load_into_linear(path)
    assert not marker.exists()


def test_a_header_that_is_code_is_not_evaluated(write, tmp_path):
    marker = tmp_path / 'pwned'
    code = (f"{{'descr': open({str(marker)!r}, 'w').name, 'fortran_order': False, "
            "'shape': ()}\n").encode()
    path = write('code.npz', npz_bytes({'W.npy': npy_bytes(None, None, header=code)}))
    with pytest.raises(FileFormatError, match='unreadable .npy header'):
        load_into_linear(path)
    assert not marker.exists()


# ----------------------------------------------------------- sizes and bombs


def test_a_member_declaring_more_than_deflate_can_produce_is_refused(write):
    header = npy_bytes('<f4', (1 << 28,))  # 1 GiB of float32, never allocated
    stored = deflate(header + bytes(4096))
    bomb = raw_zip([('W.npy', stored, 0, len(header) + (1 << 30), zipfile.ZIP_DEFLATED)])
    path = write('bomb.npz', bomb)
    with pytest.raises(UnsafeFileError, match='zip bomb'):
        load_into_linear(path)


def test_a_member_far_larger_than_its_header_is_refused(write):
    member = npy_bytes('<f4', (2, 3), bytes(24)) + bytes(8 << 20)
    path = write('bomb.npz', npz_bytes({'W.npy': member}))
    assert path.stat().st_size < 64 << 10
    with pytest.raises(UnsafeFileError, match='declares .* bytes uncompressed'):
        load_into_linear(path)


def test_a_member_shorter_than_its_header_describes_is_truncated(write):
    path = write('short.npz', npz_bytes({'W.npy': npy_bytes('<f4', (1 << 26,), bytes(64))}))
    with pytest.raises(FileFormatError, match=r'short\.npz.*truncated'):
        load_into_linear(path)


def test_a_size_that_lies_low_fails_the_crc(write):
    member = npy_bytes('<f4', (2, 3), np.arange(6, dtype='<f4').tobytes())
    data = member + bytes(100)
    lying = raw_zip([('W.npy', deflate(data), zlib.crc32(data), len(member),
                      zipfile.ZIP_DEFLATED)])
    path = write('lying.npz', lying)
    with pytest.raises(FileFormatError, match=r'lying\.npz'):
        load_npz(path, L.Linear(3, 2), ignore_names='b')


@pytest.mark.parametrize('version,length', [((1, 0), 60000), ((2, 0), 1 << 31)])
def test_an_oversized_header_is_refused(write, version, length):
    header = b'{' + b' ' * 64
    member = (b'\x93NUMPY' + bytes(version)
              + struct.pack('<H' if version == (1, 0) else '<I', length) + header)
    path = write('header.npz', npz_bytes({'W.npy': member}))
    with pytest.raises(UnsafeFileError, match='header is .* bytes long'):
        load_into_linear(path)


# ------------------------------------------------------ truncated and corrupt


def _good_npz(tmp_path):
    path = tmp_path / 'good.npz'
    save_npz(path, L.Linear(30, 20))
    return path.read_bytes()


@pytest.mark.parametrize('keep', [0.5, 0.9, 0.99])
def test_a_truncated_file_names_the_file(write, tmp_path, keep):
    data = _good_npz(tmp_path)
    path = write('cut.npz', data[:int(len(data) * keep)])
    with pytest.raises(FileFormatError, match=r'cut\.npz.*(truncated|corrupt)'):
        load_into_linear(path)


def test_corrupt_compressed_data_names_the_file(write, tmp_path):
    data = bytearray(_good_npz(tmp_path))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo('W.npy')
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    for index in range(start, start + 64):
        data[index] ^= 0x5A
    path = write('flipped.npz', bytes(data))
    with pytest.raises(FileFormatError, match=r'flipped\.npz'):
        load_npz(path, L.Linear(30, 20))


def test_members_that_are_not_npy_arrays_are_refused(write):
    for members in ({'notes.txt': b'hello'}, {'W.npy': b'hello, not an array'},
                    {'W.npy': npy_bytes('<f4', (2,), bytes(8), version=(9, 9))}):
        path = write('odd.npz', npz_bytes(members))
        with pytest.raises(FileFormatError, match=r'odd\.npz'):
            load_into_linear(path)


def test_bad_header_fields_are_refused(write):
    for descr, shape in (('<f4', (-1,)), ('<f4', 'x'), ('not a dtype', (2,)),
                         ('<f4', (True,))):
        path = write('bad.npz', npz_bytes({'W.npy': npy_bytes(descr, shape)}))
        with pytest.raises(FileFormatError, match=r'bad\.npz'):
            load_into_linear(path)


def test_unsupported_compression_is_refused(write):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w', compression=zipfile.ZIP_BZIP2) as archive:
        archive.writestr('W.npy', npy_bytes('<f4', (2,), bytes(8)))
    path = write('bz.npz', buffer.getvalue())
    with pytest.raises(FileFormatError, match='compression method'):
        load_into_linear(path)


def test_duplicate_members_are_refused(write):
    member = npy_bytes('<f4', (2,), bytes(8))
    crc = zlib.crc32(member)
    data = raw_zip([('b.npy', member, crc, len(member), zipfile.ZIP_STORED)] * 2)
    path = write('twice.npz', data)
    with pytest.raises(FileFormatError, match='twice'):
        load_into_linear(path)


# ----------------------------------------------------------- other formats


def test_an_hdf5_file_says_to_call_load_hdf5(tmp_path):
    pytest.importorskip('h5py')
    path = tmp_path / 'model.h5'
    save_hdf5(path, L.Linear(3, 2))
    with pytest.raises(FileFormatError, match=r"model\.h5.*HDF5.*load_hdf5"):
        load_into_linear(path)


def test_chainers_hdf5_fixture_says_to_call_load_hdf5():
    with pytest.raises(FileFormatError, match='load_hdf5'):
        load_into_linear(DATA / 'mlp_classifier.h5')


@pytest.mark.parametrize('name', ['caffe_mlp', 'caffe_convnet'])
def test_a_caffemodel_says_to_use_the_caffe_importer(name):
    path = DATA / name / 'chainer_model.caffemodel'
    with pytest.raises(FileFormatError, match=r'Caffe.*catena_zoo\.caffe\.CaffeFunction'):
        load_into_linear(path)


def test_a_caffe_prototxt_points_to_the_caffemodel(write):
    path = write('net.prototxt', b'name: "mlp"\nlayer {\n  name: "data"\n}\n')
    with pytest.raises(FileFormatError, match=r'prototxt.*\.caffemodel.*CaffeFunction'):
        load_into_linear(path)


def test_a_single_npy_array_says_to_use_numpy_load(write):
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    path = write('array.npy', buffer.getvalue())
    with pytest.raises(FileFormatError, match='single .npy array.*numpy.load'):
        load_into_linear(path)


@pytest.mark.parametrize('data,match', [
    (b'', 'empty'),
    (gzip.compress(b'x' * 100, mtime=0), 'first bytes: 1f8b'),
    (b'\x00\x01\x02 garbage', 'first bytes'),
], ids=['empty', 'gzip', 'garbage'])
def test_unknown_formats_are_refused_naming_the_file(write, data, match):
    path = write('mystery.bin', data)
    with pytest.raises(FileFormatError, match=rf'mystery\.bin.*{match}'):
        load_into_linear(path)
