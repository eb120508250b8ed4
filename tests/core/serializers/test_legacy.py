import io
import pathlib
import pickle

import numpy as np
import pytest

import catena.links as L
from catena.serializers import (
    UnsafeFileError,
    _npz_reader,
    convert_legacy_npz,
    load_npz,
    save_npz,
)

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'


class CreatesFile:
    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, 'w'))


def legacy_file(tmp_path):
    path = tmp_path / 'legacy.npz'
    np.savez(path, W=np.asarray(None), b=np.zeros(3, np.float32),
             count=np.asarray(4, dtype=object), name=np.asarray('lin', dtype=object),
             values=np.array([1.5, 2.5], dtype=object))
    return path


def test_without_unsafe_a_pickled_file_is_refused_with_the_risk_explained(tmp_path):
    src = legacy_file(tmp_path)
    with pytest.raises(UnsafeFileError, match='unsafe=True.*arbitrary code') as info:
        convert_legacy_npz(src, tmp_path / 'out.npz')
    assert info.value.needs_unpickling
    assert not (tmp_path / 'out.npz').exists()


def test_with_unsafe_a_legacy_file_becomes_a_safe_one(tmp_path):
    src = legacy_file(tmp_path)
    dst = tmp_path / 'safe.npz'
    keys = convert_legacy_npz(src, dst, unsafe=True)
    assert keys == ['W', 'b', 'count', 'name', 'values']
    entries, _ = _npz_reader.read_npz(dst)
    assert entries['W'] is None
    assert entries['count'] == 4 and entries['count'].dtype.kind == 'i'
    assert entries['name'] == 'lin' and entries['name'].dtype.kind == 'U'
    np.testing.assert_array_equal(entries['values'], [1.5, 2.5])
    link = L.Linear(None, 3)
    load_npz(dst, link, ignore_names=['count', 'name', 'values'])
    assert link.W.array is None


def test_a_file_that_needs_no_unpickling_converts_without_unsafe(tmp_path):
    dst = tmp_path / 'converted.npz'
    assert convert_legacy_npz(DATA / 'uninitialized_linear.npz', dst) == ['W', 'b']
    link = L.Linear(None, 3)
    load_npz(dst, link)
    assert link.W.array is None and (link.b.array == 0).all()


def test_the_converter_can_rewrite_a_file_in_place(tmp_path):
    src = legacy_file(tmp_path)
    convert_legacy_npz(src, src, unsafe=True)
    entries, _ = _npz_reader.read_npz(src)
    assert entries['W'] is None


def test_file_objects_are_accepted(tmp_path):
    src = io.BytesIO(legacy_file(tmp_path).read_bytes())
    dst = io.BytesIO()
    convert_legacy_npz(src, dst, unsafe=True)
    dst.seek(0)
    entries, _ = _npz_reader.read_npz(dst)
    assert set(entries) == {'W', 'b', 'count', 'name', 'values'}


def test_objects_catena_cannot_store_are_an_error_even_when_unsafe(tmp_path):
    path = tmp_path / 'dict.npz'
    np.savez(path, config=np.asarray({'lr': 0.1}, dtype=object))
    with pytest.raises(ValueError, match="'config' holds a dict"):
        convert_legacy_npz(path, tmp_path / 'out.npz', unsafe=True)
    assert not (tmp_path / 'out.npz').exists()


def test_the_unsafe_path_still_refuses_what_is_not_an_npz_archive(tmp_path):
    marker = tmp_path / 'pwned'
    path = tmp_path / 'raw.pkl'
    path.write_bytes(pickle.dumps(CreatesFile(marker)))
    with pytest.raises(UnsafeFileError, match='pickle'):
        convert_legacy_npz(path, tmp_path / 'out.npz', unsafe=True)
    assert not marker.exists()


def test_a_safe_catena_file_round_trips_through_the_converter(tmp_path):
    src = tmp_path / 'model.npz'
    save_npz(src, L.Linear(3, 2))
    convert_legacy_npz(src, tmp_path / 'again.npz')
    link = L.Linear(3, 2)
    load_npz(tmp_path / 'again.npz', link)
