import io
import pickle
import zipfile

import numpy
import pytest

import catena
from catena.datasets import _image_io, image_dataset, zipped_image_dataset


class _FakeOpened:
    """Stands in for a Pillow image: the 'image file' is a .npy file."""

    def __init__(self, source):
        self._array = numpy.load(source, allow_pickle=False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def __array__(self, dtype=None, copy=None):
        return self._array.astype(dtype) if dtype is not None else self._array


class _FakeImageModule:
    @staticmethod
    def open(source):
        return _FakeOpened(source)


@pytest.fixture(params=['fake', 'pillow'])
def image_backend(request, monkeypatch):
    """Writes images in the format the active backend reads."""
    if request.param == 'fake':
        monkeypatch.setattr(_image_io, '_pil_image', _FakeImageModule)

        def encode(array):
            buf = io.BytesIO()
            numpy.save(buf, array)
            return buf.getvalue()
    else:
        pil = pytest.importorskip('PIL.Image')
        monkeypatch.setattr(_image_io, '_pil_image', None)

        def encode(array):
            buf = io.BytesIO()
            pil.fromarray(array).save(buf, format='PNG')
            return buf.getvalue()
    return encode


def _images():
    rng = numpy.random.RandomState(0)
    rgb = rng.randint(0, 256, size=(4, 5, 3)).astype(numpy.uint8)
    grey = rng.randint(0, 256, size=(3, 2)).astype(numpy.uint8)
    return {'a.png': rgb, 'sub/b.png': grey}


def _expected(array):
    return (array[:, :, None] if array.ndim == 2 else array).transpose(2, 0, 1)


def test_image_dataset(tmp_path, image_backend):
    images = _images()
    for name, arr in images.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(image_backend(arr))
    ds = image_dataset.ImageDataset(list(images), root=str(tmp_path))
    assert len(ds) == 2
    for i, arr in enumerate(images.values()):
        x = ds[i]
        assert x.dtype == catena.get_dtype()
        numpy.testing.assert_array_equal(x, _expected(arr))
    # a text file listing the paths, and a dtype
    listing = tmp_path / 'list.txt'
    listing.write_text('a.png\n\nsub/b.png\n')
    ds = image_dataset.ImageDataset(str(listing), root=str(tmp_path), dtype=numpy.float64)
    assert len(ds) == 2 and ds[1].dtype == numpy.float64 and ds[1].shape == (1, 3, 2)


def test_labeled_image_dataset(tmp_path, image_backend):
    images = _images()
    for name, arr in images.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(image_backend(arr))
    ds = image_dataset.LabeledImageDataset([('a.png', 3), ('sub/b.png', 7)],
                                           root=str(tmp_path), label_dtype=numpy.int64)
    x, t = ds[1]
    numpy.testing.assert_array_equal(x, _expected(images['sub/b.png']))
    assert t.dtype == numpy.int64 and t == 7
    listing = tmp_path / 'pairs.txt'
    listing.write_text('a.png 3\nsub/b.png 7\n')
    ds = image_dataset.LabeledImageDataset(str(listing), root=str(tmp_path))
    assert [int(t) for _, t in ds] == [3, 7]
    assert ds[0][1].dtype == numpy.int32
    listing.write_text('a.png\n')
    with pytest.raises(ValueError, match='line 1'):
        image_dataset.LabeledImageDataset(str(listing))


def _zip(path, members):
    with zipfile.ZipFile(path, 'w') as zf:
        zf.writestr('dir/', b'')
        for name, data in members.items():
            zf.writestr(name, data)


def test_zipped_image_datasets(tmp_path, image_backend):
    images = _images()
    _zip(tmp_path / 'one.zip', {n: image_backend(a) for n, a in images.items()})
    more = {'c.png': numpy.full((2, 2, 3), 9, numpy.uint8)}
    _zip(tmp_path / 'two.zip', {n: image_backend(a) for n, a in more.items()})
    ds = zipped_image_dataset.ZippedImageDataset(str(tmp_path / 'one.zip'))
    assert len(ds) == 2 and ds.paths == ['a.png', 'sub/b.png']
    numpy.testing.assert_array_equal(ds[0], _expected(images['a.png']))
    # picklable (for multiprocess iterators) without the open archive
    ds2 = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(ds2[1], _expected(images['sub/b.png']))
    ds.close()
    numpy.testing.assert_array_equal(ds[1], _expected(images['sub/b.png']))

    multi = zipped_image_dataset.MultiZippedImageDataset(
        [str(tmp_path / 'one.zip'), str(tmp_path / 'two.zip')], dtype=numpy.float64)
    assert len(multi) == 3
    numpy.testing.assert_array_equal(multi[2], _expected(more['c.png']))
    numpy.testing.assert_array_equal(multi[-3], _expected(images['a.png']))
    assert multi[1].dtype == numpy.float64
    with pytest.raises(IndexError):
        multi.get_example(3)

    labels = tmp_path / 'labels.txt'
    labels.write_text('sub/b.png 1\na.png 0\n')
    labeled = zipped_image_dataset.LabeledZippedImageDataset(
        str(tmp_path / 'one.zip'), str(labels))
    assert len(labeled) == 2
    x, t = labeled[0]
    numpy.testing.assert_array_equal(x, _expected(images['sub/b.png']))
    assert t.dtype == numpy.int32 and t == 1


def test_missing_pillow_message(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith('PIL'):
            raise ImportError('no PIL')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(_image_io, '_pil_image', None)
    monkeypatch.setattr(builtins, '__import__', fake_import)
    ds = image_dataset.ImageDataset(['x.png'], root=str(tmp_path))
    with pytest.raises(ImportError, match='pip install pillow'):
        ds[0]


def test_available_says_whether_pillow_is_installed(monkeypatch):
    import importlib.util

    installed = importlib.util.find_spec('PIL') is not None
    assert image_dataset.available is installed
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, 'find_spec',
                        lambda name, *a: None if name == 'PIL' else real_find_spec(name, *a))
    assert image_dataset.available is False
