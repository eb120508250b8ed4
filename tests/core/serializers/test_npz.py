import io
import os
import threading
import zipfile

import numpy as np
import pytest

import catena.links as L
from catena import Chain, Link, Parameter, serializers, testing
from catena.serializers import (
    DictionarySerializer,
    KeyMismatchError,
    NpzDeserializer,
    load_npz,
    save_npz,
)


class Holder(Link):
    """A link with a parameter, a persistent array and persistent scalars."""

    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        with self.init_scope():
            self.W = Parameter(rng.standard_normal((3, 2)).astype(np.float32))
        self.add_persistent('mean', rng.standard_normal(2).astype(np.float32))
        self.add_persistent('count', int(seed) + 1)
        self.add_persistent('rate', 0.5 + seed)
        self.add_persistent('flag', bool(seed % 2))
        self.add_persistent('label', f'holder-{seed}')
        self.add_persistent('nothing', None)
        self.add_persistent('half', np.float16(seed))


class Net(Chain):
    def __init__(self, seed=0):
        super().__init__()
        with self.init_scope():
            self.a = Holder(seed)
            self.l1 = L.Linear(3, 4)
            self.lazy = L.Linear(None, 2)
        if seed:
            rng = np.random.default_rng(seed)
            for param in self.params():
                if param.array is not None:
                    param.array[...] = rng.standard_normal(param.shape)


class Counter:
    """An optimizer-like object with scalars, a state array and a child."""

    def __init__(self, t=0, epoch=0, state=None):
        self.t = t
        self.epoch = epoch
        self.state = np.zeros(3, np.float32) if state is None else state
        self.link = Holder()

    def serialize(self, serializer):
        self.t = serializer('t', self.t)
        self.epoch = serializer('epoch', self.epoch)
        self.state = serializer('state', self.state)
        self.link.serialize(serializer['link'])


def arrays_of(link):
    return {name: (None if p.array is None else p.array.copy())
            for name, p in link.namedparams()}


def assert_same_arrays(a, b):
    assert a.keys() == b.keys()
    for name in a:
        if a[name] is None or b[name] is None:
            assert a[name] is None and b[name] is None, name
        else:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize('compression', [True, False])
def test_round_trip_restores_parameters_persistents_and_scalar_types(tmp_path, compression):
    src, dst = Net(seed=3), Net(seed=0)
    path = tmp_path / 'net.npz'
    save_npz(str(path), src, compression=compression)
    load_npz(str(path), dst)
    assert_same_arrays(arrays_of(src), arrays_of(dst))
    np.testing.assert_array_equal(dst.a.mean, src.a.mean)
    assert dst.a.count == 4 and type(dst.a.count) is int
    assert dst.a.rate == 3.5 and type(dst.a.rate) is float
    assert dst.a.flag is True
    assert dst.a.label == 'holder-3' and type(dst.a.label) is str
    assert dst.a.nothing is None
    assert dst.a.half == np.float16(3) and type(dst.a.half) is np.float16
    assert dst.lazy.W.array is None  # saved uninitialized, stays uninitialized


def test_compression_flag_selects_the_zip_method(tmp_path):
    for compression, method in [(True, zipfile.ZIP_DEFLATED), (False, zipfile.ZIP_STORED)]:
        path = tmp_path / f'{compression}.npz'
        save_npz(path, Net(), compression=compression)
        with zipfile.ZipFile(path) as archive:
            assert {info.compress_type for info in archive.infolist()} == {method}


def test_saved_files_hold_no_object_arrays_and_numpy_reads_them_without_pickle(tmp_path):
    path = tmp_path / 'net.npz'
    save_npz(path, Net(seed=1))
    with np.load(path, allow_pickle=False) as npz:
        keys = set(npz.files)
        assert {'a/W', 'a/mean', 'a/count', 'a/label', 'a/nothing', 'l1/W', 'l1/b',
                'lazy/W', 'lazy/b'} <= keys
        assert all(not npz[key].dtype.hasobject for key in keys)
        assert npz['a/label'].dtype.kind == 'U'
        assert npz['a/nothing'].dtype == serializers.NONE_DTYPE
        assert npz['lazy/W'].dtype == serializers.NONE_DTYPE


def test_the_key_layout_follows_chainer(tmp_path):
    model = L.Classifier(L.Linear(2, 3))
    target = DictionarySerializer()
    target.save(model)
    assert set(target.target) == {'predictor/W', 'predictor/b'}


def test_file_objects_work_for_saving_and_loading():
    src, dst = Net(seed=5), Net()
    buffer = io.BytesIO()
    save_npz(buffer, src)
    buffer.seek(0)
    load_npz(buffer, dst)
    assert_same_arrays(arrays_of(src), arrays_of(dst))


def test_unseekable_file_objects_are_read_whole():
    class Stream(io.RawIOBase):
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self.inner.readinto(b)

    buffer = io.BytesIO()
    save_npz(buffer, Net(seed=2))
    dst = Net()
    load_npz(Stream(buffer.getvalue()), dst)
    assert dst.a.count == 3


def test_pathlike_and_no_npz_suffix_is_added(tmp_path):
    path = tmp_path / 'model'
    save_npz(path, Net())
    assert os.listdir(tmp_path) == ['model']


def test_a_device_array_is_saved_and_filled_in_place(tmp_path):
    from catena.testing._fake_device import FakeArray

    src, dst = Holder(seed=2), Holder(seed=0)
    src.to_device('@fake')
    dst.to_device('@fake')
    array_before = dst.W.array
    save_npz(tmp_path / 'h.npz', src)
    load_npz(tmp_path / 'h.npz', dst)
    assert dst.W.array is array_before and isinstance(dst.W.array, FakeArray)
    np.testing.assert_array_equal(np.asarray(dst.W.array), np.asarray(src.W.array))


def test_testing_save_and_load_npz_round_trips():
    src, dst = Net(seed=7), Net()
    testing.save_and_load_npz(src, dst)
    assert_same_arrays(arrays_of(src), arrays_of(dst))


def test_uninitialized_params_are_initialized_from_the_file(tmp_path):
    src = L.Linear(None, 2)
    src(np.ones((1, 5), np.float32))
    dst = L.Linear(None, 2)
    save_npz(tmp_path / 'l.npz', src)
    load_npz(tmp_path / 'l.npz', dst)
    np.testing.assert_array_equal(dst.W.array, src.W.array)


# --------------------------------------------------------------- path and ignore


def test_path_loads_a_sub_tree(tmp_path):
    class Outer:
        def __init__(self, model):
            self.model = model

        def serialize(self, s):
            s('iteration', 7)
            self.model.serialize(s['updater']['model:main'])

    src, dst = Net(seed=4), Net()
    save_npz(tmp_path / 'snapshot.npz', Outer(src))
    load_npz(tmp_path / 'snapshot.npz', dst, path='updater/model:main/')
    assert_same_arrays(arrays_of(src), arrays_of(dst))


def test_a_path_with_no_keys_says_so(tmp_path):
    save_npz(tmp_path / 'n.npz', Net())
    with pytest.raises(KeyMismatchError, match="no keys under path 'nowhere/'"):
        load_npz(tmp_path / 'n.npz', Net(), path='nowhere/')


@pytest.mark.parametrize('ignore', [
    ['l1/W', 'l1/b'],
    lambda key: key.startswith('l1/'),
    [lambda key: key == 'l1/W', 'l1/b'],
])
def test_ignore_names_skips_keys(tmp_path, ignore):
    src, dst = Net(seed=1), Net(seed=2)
    before = dst.l1.W.array.copy()
    save_npz(tmp_path / 'n.npz', src)
    load_npz(tmp_path / 'n.npz', dst, ignore_names=ignore)
    np.testing.assert_array_equal(dst.l1.W.array, before)
    np.testing.assert_array_equal(dst.a.W.array, src.a.W.array)


def test_ignored_keys_are_neither_missing_nor_unexpected(tmp_path):
    save_npz(tmp_path / 'lin.npz', L.Linear(3, 4))
    small = Chain()
    with small.init_scope():
        small.W = Parameter(np.zeros((4, 3), np.float32))
        small.extra = Parameter(np.zeros(2, np.float32))
    load_npz(tmp_path / 'lin.npz', small, ignore_names=['b', 'extra'])


def test_bad_ignore_names_and_path_are_type_errors(tmp_path):
    save_npz(tmp_path / 'n.npz', Net())
    with pytest.raises(TypeError, match='ignore_names'):
        load_npz(tmp_path / 'n.npz', Net(), ignore_names=3)
    with pytest.raises(TypeError, match='ignore_names'):
        load_npz(tmp_path / 'n.npz', Net(), ignore_names=['a', 3])
    with pytest.raises(TypeError, match='path'):
        load_npz(tmp_path / 'n.npz', Net(), path=None)


# ------------------------------------------------------------------ strict mode


def _mismatching_file(tmp_path):
    """A file for Net with a key missing, one extra, a wrong shape and an overflowing value."""
    target = DictionarySerializer()
    target.save(Net(seed=1))
    arrays = target.target
    del arrays['l1/b']
    arrays['l1/extra'] = np.zeros(3, np.float32)
    arrays['a/W'] = np.zeros((2, 3), np.float32)
    arrays['a/mean'] = np.array([1e300, 0.5])  # float64; 1e300 is inf in float32
    path = tmp_path / 'bad.npz'
    np.savez(path, **arrays)
    return path


def test_strict_reports_every_problem_in_one_error(tmp_path):
    path = _mismatching_file(tmp_path)
    with pytest.raises(KeyMismatchError) as info:
        load_npz(path, Net())
    error = info.value
    assert isinstance(error, KeyError) and isinstance(error, ValueError)
    assert error.missing == ['l1/b']
    assert error.unexpected == []  # extra keys are ignored, as in Chainer
    assert [key for key, _ in error.mismatched] == ['a/W', 'a/mean']
    text = str(error)
    for part in ('bad.npz', 'l1/b', 'a/W', '(2, 3)', 'a/mean', 'float64', 'float32',
                 'overflow to inf', 'unchanged'):
        assert part in text
    assert 'l1/extra' not in text


def test_a_failed_load_leaves_arrays_scalars_and_uninitialized_params_unchanged(tmp_path):
    path = _mismatching_file(tmp_path)
    dst = Net(seed=2)
    before = arrays_of(dst)
    mean, count, label = dst.a.mean.copy(), dst.a.count, dst.a.label
    with pytest.raises(KeyMismatchError):
        load_npz(path, dst)
    assert_same_arrays(arrays_of(dst), before)
    assert dst.lazy.W.array is None and dst.lazy.b.array is not None
    np.testing.assert_array_equal(dst.a.mean, mean)
    assert (dst.a.count, dst.a.label) == (count, label)


def test_a_failed_load_leaves_an_optimizer_like_object_unchanged(tmp_path):
    saved = DictionarySerializer()
    saved.save(Counter(t=5, epoch=2, state=np.arange(3, dtype=np.float32)))
    del saved.target['link/mean']
    np.savez(tmp_path / 'c.npz', **saved.target)
    dst = Counter(t=1, epoch=1, state=np.full(3, 9, np.float32))
    state = dst.state
    with pytest.raises(KeyMismatchError, match='link/mean'):
        load_npz(tmp_path / 'c.npz', dst)
    assert (dst.t, dst.epoch) == (1, 1)
    assert dst.state is state and (state == 9).all()
    load_npz(tmp_path / 'c.npz', dst, strict=False)
    assert (dst.t, dst.epoch) == (5, 2) and dst.state is state
    np.testing.assert_array_equal(state, [0, 1, 2])


def test_a_failed_load_leaves_an_uninitialized_param_uninitialized(tmp_path):
    src = Chain()
    with src.init_scope():
        src.l1 = L.Linear(5, 3)
        src.l2 = L.Linear(3, 2)
    save_npz(tmp_path / 'two.npz', src)
    dst = Chain()
    with dst.init_scope():
        dst.l1 = L.Linear(None, 3)
        dst.l2 = L.Linear(4, 2)  # wrong in_size: l2/W mismatches
    with pytest.raises(KeyMismatchError, match='l2/W'):
        load_npz(tmp_path / 'two.npz', dst)
    assert dst.l1.W.array is None


def test_non_strict_skips_missing_keys_but_not_values_that_do_not_fit(tmp_path):
    path = _mismatching_file(tmp_path)
    dst = Net(seed=2)
    b = dst.l1.b.array.copy()
    with pytest.raises(KeyMismatchError) as info:  # shapes and values must still fit
        load_npz(path, dst, strict=False)
    assert [key for key, _ in info.value.mismatched] == ['a/W', 'a/mean']
    assert not info.value.missing and not info.value.unexpected
    load_npz(path, dst, strict=False, ignore_names=['a/W', 'a/mean'])
    np.testing.assert_array_equal(dst.l1.b.array, b)
    with np.load(path) as npz:
        np.testing.assert_array_equal(dst.l1.W.array, npz['l1/W'])


def test_strict_mode_ignores_keys_the_object_never_asks_for(tmp_path):
    src = Chain()
    with src.init_scope():
        src.first = L.Linear(3, 2)
        src.second = L.Linear(2, 2)
    src.add_persistent('step', 7)
    save_npz(tmp_path / 'big.npz', src)
    dst = Chain()  # a smaller model, as when loading part of a pretrained one
    with dst.init_scope():
        dst.first = L.Linear(3, 2)
    load_npz(tmp_path / 'big.npz', dst)
    np.testing.assert_array_equal(dst.first.W.array, src.first.W.array)
    other = Chain()
    with other.init_scope():
        other.first = L.Linear(3, 2)
    with np.load(tmp_path / 'big.npz') as npz:
        NpzDeserializer(npz).load(other)
    np.testing.assert_array_equal(other.first.b.array, src.first.b.array)


@pytest.mark.parametrize('strict', [True, False])
def test_dtypes_are_cast_as_numpy_copyto_casts(tmp_path, strict):
    holder = Holder()
    holder.add_persistent('ints', np.zeros(3, np.int32))
    holder.add_persistent('floats', np.zeros(2, np.float32))
    holder.add_persistent('small', np.uint8(0))
    holder.W.array = holder.W.array.astype(np.float16)
    stored = serializers.npz.serialize(Holder(seed=1))
    stored.update(ints=np.array([-2 ** 31, 0, 2 ** 31 - 1], np.int64),
                  floats=np.array([3, 1 << 40], np.int64), small=np.uint16(255),
                  mean=np.array([0.1, np.inf], np.float64), half=np.float64(-65504))
    np.savez(tmp_path / 'wide.npz', **stored)
    load_npz(tmp_path / 'wide.npz', holder, strict=strict)
    assert holder.W.dtype == np.float16
    np.testing.assert_array_equal(holder.W.array, stored['W'].astype(np.float16))
    assert holder.ints.dtype == np.int32 and holder.ints.tolist() == [-2 ** 31, 0, 2 ** 31 - 1]
    assert holder.floats.tolist() == [3.0, float(1 << 40)]
    assert type(holder.small) is np.uint8 and holder.small == 255
    assert holder.mean.dtype == np.float32
    np.testing.assert_array_equal(holder.mean, np.array([0.1, np.inf], np.float32))
    assert type(holder.half) is np.float16 and holder.half == -65504


@pytest.mark.parametrize('strict', [True, False])
@pytest.mark.parametrize('stored, current, problem', [
    (np.array([1.0, 7e4], np.float32), np.zeros(2, np.float16),
     r'1 finite value.*float32.*70000.*overflow to inf.*float16.*65504'),
    (np.array([1e39], np.float64), np.zeros(1, np.float32), 'float64.*overflow to inf.*float32'),
    (np.array([1e39 + 1j], np.complex128), np.zeros(1, np.complex64), 'overflow to inf'),
    (np.array([70000], np.int64), np.zeros(1, np.float16), 'int64.*overflow to inf.*float16'),
    (np.array([0, 300], np.int64), np.zeros(2, np.int8),
     r'int64 values span \[0, 300\], outside the range \[-128, 127\].*int8'),
    (np.array([0, 256], np.uint16), np.zeros(2, np.uint8),
     r'uint16 values span \[0, 256\].*\[0, 255\].*uint8'),
    (np.array([2 ** 64 - 1], np.uint64), np.zeros(1, np.int64),
     r'uint64 values span \[18446744073709551615, .*of the object.s int64'),
    (np.array([1, 5], np.int16), np.zeros(2, np.uint16),
     'int16 to the object.s uint16: not a same-kind'),
    (np.asarray(np.int64(1 << 40)), np.int32(0), 'int64.*int32'),
    (np.array([1.5], np.float32), np.zeros(1, np.int32), 'float32 to the object.s int32'),
    (np.array([1 + 2j]), np.zeros(1, np.float64), 'complex128 to the object.s float64'),
    (np.array([1], np.int64), np.zeros(1, np.bool_), 'int64 to the object.s bool'),
    (np.array(['abcdef']), np.array(['xyz']), '<U6 strings do not fit.*<U3'),
])
def test_casts_that_change_a_value_are_refused(tmp_path, strict, stored, current, problem):
    class One:
        value = current.copy()

        def serialize(self, serializer):
            self.value = serializer('value', self.value)

    np.savez(tmp_path / 'v.npz', value=stored)
    obj = One()
    with pytest.raises(KeyMismatchError, match='value: .*' + problem) as info:
        load_npz(tmp_path / 'v.npz', obj, strict=strict)
    assert [key for key, _ in info.value.mismatched] == ['value']
    np.testing.assert_array_equal(obj.value, current)
    with np.load(tmp_path / 'v.npz') as npz:
        with pytest.raises(TypeError, match="'value'"):
            NpzDeserializer(npz, strict=strict)('value', current.copy())


def test_a_non_finite_float_never_loads_into_an_int(tmp_path):
    class Count:
        value = 3

        def serialize(self, serializer):
            self.value = serializer('value', self.value)

    np.savez(tmp_path / 'nan.npz', value=np.float64(np.nan))
    obj = Count()
    with pytest.raises(KeyMismatchError, match='value: .*nan.*no int'):
        load_npz(tmp_path / 'nan.npz', obj, strict=False)
    assert obj.value == 3


def test_strict_scalars_accept_only_safe_conversions(tmp_path):
    class Scalars:
        def __init__(self, value):
            self.value = value

        def serialize(self, s):
            self.value = s('value', self.value)

    np.savez(tmp_path / 'f.npz', value=np.float64(2.5))
    np.savez(tmp_path / 'i.npz', value=np.int64(3))
    with pytest.raises(KeyMismatchError, match='int'):
        load_npz(tmp_path / 'f.npz', Scalars(1))
    obj = Scalars(1)
    load_npz(tmp_path / 'f.npz', obj, strict=False)
    assert obj.value == 2 and type(obj.value) is int
    obj = Scalars(1.0)
    load_npz(tmp_path / 'i.npz', obj)
    assert obj.value == 3.0 and type(obj.value) is float
    with pytest.raises(KeyMismatchError, match='str'):
        load_npz(tmp_path / 'i.npz', Scalars('text'), strict=False)
    with pytest.raises(KeyMismatchError, match='list'):
        load_npz(tmp_path / 'i.npz', Scalars([1]))


def test_lstm_weights_do_not_load_into_a_gru(tmp_path):
    save_npz(tmp_path / 'lstm.npz', L.LSTM(4, 4))
    gru = L.StatefulGRU(4, 4)
    before = arrays_of(gru)
    with pytest.raises(KeyMismatchError) as info:
        load_npz(tmp_path / 'lstm.npz', gru)
    assert info.value.unexpected == []
    assert 'W_r/W' in info.value.missing and len(info.value.missing) == 12
    assert_same_arrays(arrays_of(gru), before)


# ------------------------------------------------------- KeyError fallbacks in serialize


class OldFormatTolerant:
    """Reads 'new' if present, else falls back, as Chainer code does for older files."""

    def __init__(self):
        self.old, self.new, self.child = 1, 0, Holder()

    def serialize(self, s):
        self.old = s('old', self.old)
        try:
            self.new = s('new', self.new)
        except KeyError:
            self.new = -1
        try:
            self.child.serialize(s['child'])
        except KeyError:
            pass


def test_keys_that_serialize_catches_keyerror_for_are_tolerated(tmp_path):
    np.savez(tmp_path / 'old.npz', old=np.int64(5))
    obj = OldFormatTolerant()
    load_npz(tmp_path / 'old.npz', obj)
    assert (obj.old, obj.new) == (5, -1)


def test_keys_not_tolerated_are_reported_after_tolerated_ones(tmp_path):
    class Strict(OldFormatTolerant):
        def serialize(self, s):
            super().serialize(s)
            self.last = s('last', 0)
            self.other = s('other', 0)

    np.savez(tmp_path / 'old.npz', old=np.int64(5))
    obj = Strict()
    with pytest.raises(KeyMismatchError) as info:
        load_npz(tmp_path / 'old.npz', obj)
    assert info.value.missing == ['last', 'other']
    assert obj.old == 1 and obj.new == 0


def test_a_tolerated_key_is_not_reported_beside_a_value_that_does_not_fit(tmp_path):
    np.savez(tmp_path / 'old.npz', old=np.float64(2.5), extra=np.zeros(3))
    obj = OldFormatTolerant()
    with pytest.raises(KeyMismatchError) as info:
        load_npz(tmp_path / 'old.npz', obj)
    assert info.value.missing == [] and info.value.unexpected == []
    assert [key for key, _ in info.value.mismatched] == ['old']
    assert 'new' not in str(info.value) and 'extra' not in str(info.value)
    assert (obj.old, obj.new) == (1, 0)


def test_objects_that_cannot_be_copied_are_probed_in_place(tmp_path):
    class WithLock(OldFormatTolerant):
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

    np.savez(tmp_path / 'old.npz', old=np.int64(5))
    obj = WithLock()
    load_npz(tmp_path / 'old.npz', obj)
    assert (obj.old, obj.new) == (5, -1)


def test_a_keyerror_of_serialize_itself_propagates(tmp_path):
    class Buggy:
        def serialize(self, s):
            {}['oops']

    np.savez(tmp_path / 'x.npz', x=np.zeros(1))
    with pytest.raises(KeyError, match='oops'):
        load_npz(tmp_path / 'x.npz', Buggy())


class CallCounter:
    """Counts serialize() calls and keeps the deserializer of the last one."""

    def __init__(self, keys=()):
        self.calls, self.keys, self.values = [], keys, {}

    def serialize(self, s):
        self.calls.append(s)
        for key in self.keys:
            self.values[key] = s(key, self.values.get(key, 0))


@pytest.mark.parametrize('strict', [True, False])
def test_serialize_runs_once_when_nothing_is_asked_for(tmp_path, strict):
    save_npz(tmp_path / 'net.npz', Net())
    obj = CallCounter()
    load_npz(tmp_path / 'net.npz', obj, strict=strict)
    assert len(obj.calls) == 1
    assert isinstance(obj.calls[0], NpzDeserializer) and obj.calls[0].strict is strict


def test_serialize_runs_once_when_every_key_asked_for_is_absent(tmp_path):
    np.savez(tmp_path / 'x.npz', x=np.int64(3))
    obj = CallCounter(keys=('absent',))
    load_npz(tmp_path / 'x.npz', obj, strict=False)
    assert len(obj.calls) == 1 and obj.values == {'absent': 0}


def test_a_value_to_load_is_checked_first_then_loaded(tmp_path):
    np.savez(tmp_path / 'x.npz', x=np.int64(3))
    obj = CallCounter(keys=('x',))
    load_npz(tmp_path / 'x.npz', obj)
    assert len(obj.calls) == 2 and obj.values == {'x': 3}
    assert all(isinstance(s, NpzDeserializer) for s in obj.calls)


def test_a_missing_key_that_serialize_tolerates_reaches_the_real_load(tmp_path):
    np.savez(tmp_path / 'empty.npz', unrelated=np.zeros(1))

    class OnlyFallback:
        new = 0

        def serialize(self, s):
            try:
                self.new = s('new', self.new)
            except KeyError:
                self.new = -1

    obj = OnlyFallback()
    load_npz(tmp_path / 'empty.npz', obj)
    assert obj.new == -1


# ------------------------------------------------------------ direct deserializers


def test_npz_deserializer_over_numpy_load_as_in_chainer(tmp_path):
    src, dst = Net(seed=6), Net()
    save_npz(tmp_path / 'n.npz', src)
    with np.load(tmp_path / 'n.npz') as npz:
        NpzDeserializer(npz).load(dst)
    assert_same_arrays(arrays_of(src), arrays_of(dst))


def test_npz_deserializer_calls_follow_chainer_semantics():
    target = DictionarySerializer()
    target.save(Net(seed=1))
    d = NpzDeserializer(target.target)
    assert d.strict and d.ignore_names is None
    child = d['a']
    assert child.path == 'a/'
    loaded = child('W', None)
    assert loaded.shape == (3, 2) and loaded is not target.target['a/W']
    assert child('count', 0) == 2
    assert child('nothing', np.zeros(2)) is None
    array = np.zeros((3, 2), np.float32)
    assert child('W', array) is array and (array == loaded).all()
    with pytest.raises(KeyError, match='missing'):
        child('missing', 1)
    with pytest.raises(ValueError, match='a/W'):
        child('W', np.zeros((2, 2), np.float32))
    assert NpzDeserializer(target.target, strict=False)('missing', 3) == 3
    assert NpzDeserializer(target.target, ignore_names='a/count')('a/count', 9) == 9


def test_deserializer_type_problems_raise_type_error():
    d = NpzDeserializer({'i': np.asarray(-2 ** 60, np.int64), 'f': np.asarray(1.5, np.float32),
                         'W': np.ones((2, 2), np.float32)})
    with pytest.raises(TypeError, match="'i'.*uint32"):
        d('i', np.uint32(5))
    with pytest.raises(TypeError, match="'f'.*int"):
        d('f', 5)
    with pytest.raises(TypeError, match="'W'.*float32.*int32"):
        d('W', np.zeros((2, 2), np.int32))
    assert d('W', np.zeros((2, 2), np.float16)).dtype == np.float16
    with pytest.raises(ValueError, match="'W'") as shape_error:
        d('W', np.zeros((3, 2), np.float32))
    assert not isinstance(shape_error.value, TypeError)
    assert d('i', 5) == -2 ** 60


def test_serialize_returns_the_dictionary_save_npz_writes(tmp_path):
    net = Net(seed=2)
    flat = serializers.npz.serialize(net)
    assert isinstance(flat, dict) and 'a/W' in flat
    save_npz(tmp_path / 'n.npz', net)
    with np.load(tmp_path / 'n.npz') as npz:
        assert sorted(npz.files) == sorted(flat)
        for key in flat:
            np.testing.assert_array_equal(npz[key], flat[key])


def test_npz_deserializer_accepts_chainers_none_in_a_mapping():
    d = NpzDeserializer({'x': np.asarray(None), 'y': None})
    assert d('x', np.zeros(1)) is None and d('y', 1) is None
    with pytest.raises(ValueError, match='Python objects'):
        NpzDeserializer({'z': np.array([1, 'a'], dtype=object)})('z', None)


def test_npz_deserializer_needs_a_mapping():
    with pytest.raises(TypeError, match='npz must be a mapping'):
        NpzDeserializer(3)


def test_dictionary_serializer_stores_copies_and_strips_slashes():
    link = Holder()
    s = DictionarySerializer()
    s['/child/']('/W', link.W)
    assert list(s.target) == ['child/W']
    stored = s.target['child/W']
    assert stored is not link.W.array
    link.W.array[...] = 7
    assert not (stored == 7).all()


def test_saving_python_objects_is_a_type_error_naming_the_key(tmp_path):
    class Weird:
        def serialize(self, s):
            s['deep']('thing', object())

    with pytest.raises(TypeError, match="'deep/thing'.*without pickle"):
        save_npz(tmp_path / 'w.npz', Weird())
    assert os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match='too_big'):
        DictionarySerializer()('too_big', 2 ** 80)


# ------------------------------------------------------------------ atomic writes


def test_a_failing_save_leaves_no_file_and_keeps_the_old_one(tmp_path):
    path = tmp_path / 'model.npz'
    save_npz(path, Net(seed=1))
    original = path.read_bytes()

    class Exploding:
        def serialize(self, s):
            s('a', np.zeros(3))
            raise RuntimeError('boom')

    with pytest.raises(RuntimeError, match='boom'):
        save_npz(path, Exploding())
    assert path.read_bytes() == original
    assert os.listdir(tmp_path) == ['model.npz']


def test_atomic_path_keeps_the_mode_of_an_existing_file(tmp_path):
    path = tmp_path / 'out.npz'
    path.write_bytes(b'old')
    os.chmod(path, 0o640)
    save_npz(path, Net())
    assert (os.stat(path).st_mode & 0o777) == 0o640
    umask = os.umask(0o027)
    try:
        fresh = tmp_path / 'fresh.npz'
        save_npz(fresh, Net())
    finally:
        os.umask(umask)
    assert (os.stat(fresh).st_mode & 0o777) == 0o640  # as open() would create it


def test_save_npz_rejects_a_non_file():
    with pytest.raises(TypeError, match='file must be a path'):
        save_npz(3, Net())
    with pytest.raises(TypeError, match='file must be a path'):
        load_npz(3, Net())



class _SummaryHolder:
    """An object whose serialize() asks for keys named by a value it loads."""

    def __init__(self):
        from catena import reporter

        self.summary = reporter.DictSummary()

    def serialize(self, serializer):
        self.summary.serialize(serializer['summary'])


def test_keys_chosen_from_loaded_values_load_strictly(tmp_path):
    saved = _SummaryHolder()
    saved.summary.add({'a': 1.0, 'b': 2.0})
    saved.summary.add({'a': 3.0})
    serializers.save_npz(str(tmp_path / 's.npz'), saved)
    loaded = _SummaryHolder()
    serializers.load_npz(str(tmp_path / 's.npz'), loaded)
    assert loaded.summary.compute_mean() == {'a': 2.0, 'b': 2.0}


def test_a_bad_value_under_a_key_chosen_from_loaded_values_changes_nothing(tmp_path):
    saved = _SummaryHolder()
    saved.summary.add({'a': 1.0, 'b': 2.0})
    serializers.save_npz(str(tmp_path / 's.npz'), saved)
    stored = dict(np.load(str(tmp_path / 's.npz')))
    # Only a load that follows the stored names asks for this key.
    stored['summary/_summaries/1/_n'] = np.array('not a count')
    np.savez(str(tmp_path / 'bad.npz'), **stored)
    target = _SummaryHolder()
    target.summary.add({'c': 5.0})
    with pytest.raises(serializers.KeyMismatchError, match='_summaries/1/_n'):
        serializers.load_npz(str(tmp_path / 'bad.npz'), target)
    assert target.summary.compute_mean() == {'c': 5.0}
