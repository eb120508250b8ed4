import io
import os

import numpy as np
import pytest

import catena.links as L
from catena import Chain, Link, Parameter, testing
from catena.serializers import (
    FileFormatError,
    HDF5Deserializer,
    HDF5Serializer,
    KeyMismatchError,
    UnsafeFileError,
    hdf5 as hdf5_module,
    load_hdf5,
    save_hdf5,
    save_npz,
)

h5py = pytest.importorskip('h5py')


class Holder(Link):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        with self.init_scope():
            self.W = Parameter(rng.standard_normal((3, 2)).astype(np.float32))
            self.lazy = Parameter()
        self.add_persistent('count', seed + 1)
        self.add_persistent('rate', seed + 0.5)
        self.add_persistent('label', f'hold-{seed}')
        self.add_persistent('nothing', None)
        self.add_persistent('mask', np.array([True, False]) if seed else np.zeros(2, bool))


class Net(Chain):
    def __init__(self, seed=0):
        super().__init__()
        with self.init_scope():
            self.h = Holder(seed)
            self.l1 = L.Linear(3, 4)
        if seed:
            self.l1.W.array[...] = seed


def test_round_trip_keeps_values_types_and_none(tmp_path):
    src, dst = Net(seed=2), Net()
    save_hdf5(tmp_path / 'n.h5', src)
    load_hdf5(tmp_path / 'n.h5', dst)
    np.testing.assert_array_equal(dst.h.W.array, src.h.W.array)
    np.testing.assert_array_equal(dst.l1.W.array, src.l1.W.array)
    assert (dst.h.count, dst.h.rate, dst.h.label) == (3, 2.5, 'hold-2')
    assert type(dst.h.label) is str and dst.h.nothing is None and dst.h.lazy.array is None
    np.testing.assert_array_equal(dst.h.mask, [True, False])


def test_layout_uses_groups_and_empty_datasets_for_none(tmp_path):
    save_hdf5(tmp_path / 'n.h5', Net(seed=1), compression=None)
    with h5py.File(tmp_path / 'n.h5', 'r') as f:
        assert isinstance(f['h'], h5py.Group) and isinstance(f['h/W'], h5py.Dataset)
        assert f['h/nothing'].shape is None and f['h/lazy'].shape is None
        assert f['l1/W'].compression is None
    save_hdf5(tmp_path / 'c.h5', Net(seed=1))
    with h5py.File(tmp_path / 'c.h5', 'r') as f:
        assert f['l1/W'].compression == 'gzip' and f['l1/W'].compression_opts == 4
        assert f['h/count'].compression is None  # scalars are never chunked


def test_strict_reports_everything_and_leaves_the_model_unchanged(tmp_path):
    save_hdf5(tmp_path / 'lstm.h5', L.LSTM(4, 4))
    gru = L.StatefulGRU(4, 4)
    before = {name: p.array.copy() for name, p in gru.namedparams()}
    with pytest.raises(KeyMismatchError, match=r'lstm\.h5') as info:
        load_hdf5(tmp_path / 'lstm.h5', gru)
    # The LSTM's own keys are never asked for: ignored, as in Chainer.
    assert info.value.unexpected == []
    assert 'upward' not in str(info.value)
    assert len(info.value.missing) == 12
    for name, param in gru.namedparams():
        np.testing.assert_array_equal(param.array, before[name])


@pytest.mark.parametrize('strict', [True, False])
def test_dtypes_are_cast_unless_a_value_would_change(tmp_path, strict):
    with h5py.File(tmp_path / 'f64.h5', 'w') as f:
        f['W'] = np.full((2, 3), 0.1)
        f['b'] = np.ones(2)
    link = L.Linear(3, 2)
    load_hdf5(tmp_path / 'f64.h5', link, strict=strict)
    assert link.W.dtype == np.float32
    np.testing.assert_array_equal(link.W.array, np.float32(0.1))
    half = L.Linear(3, 2)
    half.W.array = half.W.array.astype(np.float16)
    before = half.W.array.copy()
    with h5py.File(tmp_path / 'big.h5', 'w') as f:
        f['W'] = np.full((2, 3), 1e6, np.float32)
        f['b'] = np.ones(2, np.float32)
    with pytest.raises(KeyMismatchError, match=r'W: .*float32.*overflow to inf.*float16') \
            as info:
        load_hdf5(tmp_path / 'big.h5', half, strict=strict)
    assert [key for key, _ in info.value.mismatched] == ['W']
    np.testing.assert_array_equal(half.W.array, before)
    assert half.b.array[0] == 0  # nothing was loaded


def test_path_and_ignore_names(tmp_path):
    class Outer:
        def __init__(self, model):
            self.model = model

        def serialize(self, s):
            self.model.serialize(s['updater']['model:main'])

    src, dst = Net(seed=3), Net()
    src.l1.b.array[...] = 5
    save_hdf5(tmp_path / 's.h5', Outer(src))
    load_hdf5(tmp_path / 's.h5', dst, path='updater/model:main/',
              ignore_names=lambda key: key.endswith('l1/b'))
    np.testing.assert_array_equal(dst.l1.W.array, src.l1.W.array)
    assert not dst.l1.b.array.any()  # ignored: still the initial zeros


def test_deserializer_calls_and_children(tmp_path):
    save_hdf5(tmp_path / 'n.h5', Net(seed=1))
    with h5py.File(tmp_path / 'n.h5', 'r') as f:
        d = HDF5Deserializer(f)
        child = d['h']
        assert child.path == 'h/'
        assert child('count', 0) == 2
        assert child('label', 'x') == 'hold-1'
        assert child('nothing', 5) is None
        assert child('W', None).shape == (3, 2)
        with pytest.raises(KeyError, match='h/missing'):
            child('missing', 1)
        with pytest.raises(ValueError, match='h/W'):
            child('W', np.zeros(3, np.float32))
        assert HDF5Deserializer(f, strict=False)('missing', 4) == 4
        assert HDF5Deserializer(f, path='h/')('count', 0) == 2
        assert HDF5Deserializer(f)['l1']('W', np.zeros((4, 3), np.float32))[0, 0] == 1
        # A child's group is the subgroup it reads, as in Chainer.
        assert d.group is f and child.group.name == '/h'
        assert d['h']['nothing_here'].group is None
        # Dtypes and types that do not convert raise TypeError (Chainer's
        # error); shapes that differ raise ValueError.
        with pytest.raises(TypeError, match='h/W.*float32.*int32'):
            child('W', np.zeros((3, 2), np.int32))
        np.testing.assert_array_equal(child('W', np.zeros((3, 2), np.float64)),
                                      child('W', None))
        with pytest.raises(TypeError, match='h/label'):
            child('label', 1)


def test_availability_flag():
    assert hdf5_module._available is True
    with pytest.raises(AttributeError):
        hdf5_module.no_such_name


def test_serializer_directly_into_a_group(tmp_path):
    with h5py.File(tmp_path / 'two.h5', 'w') as f:
        HDF5Serializer(f.require_group('first')).save(Net(seed=1))
        HDF5Serializer(f.require_group('second')).save(Net(seed=2))
    dst = Net()
    load_hdf5(tmp_path / 'two.h5', dst, path='second/')
    assert dst.h.count == 3


def test_file_objects(tmp_path):
    buffer = io.BytesIO()
    save_hdf5(buffer, Net(seed=4))
    buffer.seek(0)
    dst = Net()
    load_hdf5(buffer, dst)
    assert dst.h.count == 5


def test_testing_save_and_load_hdf5():
    src, dst = Net(seed=5), Net()
    testing.save_and_load_hdf5(src, dst)
    np.testing.assert_array_equal(dst.l1.W.array, src.l1.W.array)


def test_a_failing_save_leaves_nothing_behind(tmp_path):
    class Exploding:
        def serialize(self, s):
            s('a', np.zeros(3))
            raise RuntimeError('boom')

    with pytest.raises(RuntimeError, match='boom'):
        save_hdf5(tmp_path / 'x.h5', Exploding())
    assert os.listdir(tmp_path) == []


# -------------------------------------------------------------------- hostile


def test_an_npz_file_says_to_call_load_npz(tmp_path):
    save_npz(tmp_path / 'm.npz', L.Linear(3, 2))
    with pytest.raises(FileFormatError, match=r'm\.npz.*NPZ.*load_npz'):
        load_hdf5(tmp_path / 'm.npz', L.Linear(3, 2))


def test_truncated_hdf5_names_the_file(tmp_path):
    save_hdf5(tmp_path / 'm.h5', Net(seed=1))
    data = (tmp_path / 'm.h5').read_bytes()
    (tmp_path / 'cut.h5').write_bytes(data[:len(data) // 2])
    with pytest.raises(FileFormatError, match=r'cut\.h5'):
        load_hdf5(tmp_path / 'cut.h5', Net())


def test_external_links_are_not_followed(tmp_path):
    save_hdf5(tmp_path / 'other.h5', L.Linear(3, 2))
    with h5py.File(tmp_path / 'link.h5', 'w') as f:
        f['W'] = h5py.ExternalLink(str(tmp_path / 'other.h5'), '/W')
        f['b'] = np.zeros(2, np.float32)
    with pytest.raises(UnsafeFileError, match='ExternalLink'):
        load_hdf5(tmp_path / 'link.h5', L.Linear(3, 2))


def test_external_storage_is_refused(tmp_path):
    raw = tmp_path / 'raw.bin'
    raw.write_bytes(bytes(24))
    with h5py.File(tmp_path / 'ext.h5', 'w') as f:
        f.create_dataset('W', shape=(2, 3), dtype='<f4', external=[(str(raw), 0, 24)])
        f['b'] = np.zeros(2, np.float32)
    with pytest.raises(UnsafeFileError, match='external files'):
        load_hdf5(tmp_path / 'ext.h5', L.Linear(3, 2))


def test_object_references_are_refused(tmp_path):
    with h5py.File(tmp_path / 'ref.h5', 'w') as f:
        f['b'] = np.zeros(2, np.float32)
        refs = f.create_dataset('W', shape=(1,), dtype=h5py.ref_dtype)
        refs[0] = f['b'].ref
    with pytest.raises(UnsafeFileError, match='references'):
        load_hdf5(tmp_path / 'ref.h5', L.Linear(3, 2))


def test_a_dataset_far_larger_than_its_storage_is_refused(tmp_path):
    with h5py.File(tmp_path / 'fill.h5', 'w') as f:
        f.create_dataset('W', shape=(1 << 15, 1 << 14), dtype='<f4', chunks=(256, 256))
    with pytest.raises(UnsafeFileError, match='describes .* bytes but stores'):
        load_hdf5(tmp_path / 'fill.h5', L.Linear(None, 2), strict=False)


def test_missing_h5py_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_h5py(name, *args, **kwargs):
        if name == 'h5py':
            raise ImportError('no h5py here')
        return real_import(name, *args, **kwargs)

    hdf5_module._h5py.cache_clear()
    monkeypatch.setattr(builtins, '__import__', no_h5py)
    try:
        with pytest.raises(ImportError, match='pip install h5py'):
            save_hdf5('never-written.h5', L.Linear(3, 2))
        # Chainer raised RuntimeError here; the error is both.
        with pytest.raises(RuntimeError, match='pip install h5py'):
            HDF5Serializer(None)
        assert hdf5_module._available is False
    finally:
        monkeypatch.undo()
        hdf5_module._h5py.cache_clear()
    assert not os.path.exists('never-written.h5')


def test_serialize_runs_once_with_an_hdf5_deserializer_when_nothing_is_asked_for(tmp_path):
    path = tmp_path / 'net.h5'
    save_hdf5(path, Net())
    calls = []

    class Quiet:
        def serialize(self, s):
            calls.append(s)

    load_hdf5(path, Quiet())
    assert len(calls) == 1 and isinstance(calls[0], HDF5Deserializer)


def test_a_real_hdf5_load_hands_serialize_an_hdf5_deserializer(tmp_path):
    path = tmp_path / 'net.h5'
    save_hdf5(path, Net(seed=1))
    target = Net(seed=2)
    seen = []
    original = target.serialize

    def spy(s):
        seen.append(s)
        original(s)

    target.serialize = spy
    load_hdf5(path, target)
    assert len(seen) == 2 and all(isinstance(s, HDF5Deserializer) for s in seen)
    np.testing.assert_array_equal(target.l1.W.array, Net(seed=1).l1.W.array)
