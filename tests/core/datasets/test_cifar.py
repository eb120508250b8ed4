import io
import tarfile

import numpy
import pytest

import catena
from catena.dataset import download
from catena.datasets import cifar


def _tar_gz(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _records(rng, n, label_bytes, label_max):
    labels = rng.randint(0, label_max, size=(n, label_bytes)).astype(numpy.uint8)
    images = rng.randint(0, 256, size=(n, 3072)).astype(numpy.uint8)
    return numpy.concatenate([labels, images], axis=1).tobytes(), labels, images


@pytest.fixture
def cifar10(serve_known):
    rng = numpy.random.RandomState(1)
    members, train_y, train_x = {}, [], []
    for i in range(1, 6):
        data, y, x = _records(rng, 2, 1, 10)
        members[f'cifar-10-batches-bin/data_batch_{i}.bin'] = data
        train_y.append(y[:, 0])
        train_x.append(x)
    data, y, x = _records(rng, 3, 1, 10)
    members['cifar-10-batches-bin/test_batch.bin'] = data
    members['cifar-10-batches-bin/batches.meta.txt'] = b'airplane\n'
    serve_known(cifar._CIFAR10_URL, _tar_gz(members))
    return (numpy.concatenate(train_x), numpy.concatenate(train_y)), (x, y[:, 0])


@pytest.fixture
def cifar100(serve_known):
    rng = numpy.random.RandomState(2)
    train, train_y, train_x = _records(rng, 4, 2, 100)
    test, test_y, test_x = _records(rng, 3, 2, 100)
    serve_known(cifar._CIFAR100_URL, _tar_gz(
        {'cifar-100-binary/train.bin': train, 'cifar-100-binary/test.bin': test}))
    # fine labels are the second label byte
    return (train_x, train_y[:, 1]), (test_x, test_y[:, 1])


def _check(ds, xs, ys, withlabel, ndim, scale, dtype):
    shape = (3072,) if ndim == 1 else (3, 32, 32)
    want_dtype = numpy.dtype(dtype) if dtype is not None else catena.get_dtype()
    assert len(ds) == len(xs)
    for i in range(len(xs)):
        if withlabel:
            x, y = ds[i]
            assert y.dtype == numpy.int32 and y == ys[i]
        else:
            x = ds[i]
        assert x.shape == shape and x.dtype == want_dtype
        # channel-major records: the first 1024 bytes are the red plane
        numpy.testing.assert_allclose(
            x.astype(numpy.float64), (xs[i] * (scale / 255.)).reshape(shape), rtol=1e-6)


@pytest.mark.parametrize('withlabel', [True, False])
@pytest.mark.parametrize('ndim', [1, 3])
@pytest.mark.parametrize('scale,dtype', [(1., None), (255., numpy.float64)])
def test_cifar10(cifar10, withlabel, ndim, scale, dtype):
    train, test = cifar.get_cifar10(withlabel=withlabel, ndim=ndim, scale=scale, dtype=dtype)
    _check(train, *cifar10[0], withlabel, ndim, scale, dtype)
    _check(test, *cifar10[1], withlabel, ndim, scale, dtype)


@pytest.mark.parametrize('withlabel', [True, False])
@pytest.mark.parametrize('ndim', [1, 3])
def test_cifar100(cifar100, withlabel, ndim):
    train, test = cifar.get_cifar100(withlabel=withlabel, ndim=ndim, scale=2.)
    _check(train, *cifar100[0], withlabel, ndim, 2., None)
    _check(test, *cifar100[1], withlabel, ndim, 2., None)


def test_invalid_ndim(cifar10):
    with pytest.raises(ValueError, match='ndim'):
        cifar.get_cifar10(ndim=2)


def test_truncated_record(serve_known):
    serve_known(cifar._CIFAR100_URL, _tar_gz(
        {'cifar-100-binary/train.bin': b'\0' * 3075, 'cifar-100-binary/test.bin': b''}))
    with pytest.raises(ValueError, match='record'):
        cifar.get_cifar100()


def test_missing_member(serve_known):
    serve_known(cifar._CIFAR100_URL, _tar_gz({'cifar-100-binary/train.bin': b''}))
    with pytest.raises(ValueError, match='test.bin'):
        cifar.get_cifar100()


def test_binary_archives_registered_with_md5():
    for url in (cifar._CIFAR10_URL, cifar._CIFAR100_URL):
        entry = download.get_known_file(url)
        assert entry is not None and entry.md5 is not None and 'binary' in url
