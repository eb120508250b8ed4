import gzip
import struct

import numpy
import pytest

import catena
from catena.dataset import download
from catena.datasets import fashion_mnist, kuzushiji_mnist, mnist

GETTERS = {
    'mnist': (mnist.get_mnist, mnist._BASE),
    'fashion': (fashion_mnist.get_fashion_mnist, fashion_mnist._BASE),
    'kuzushiji': (kuzushiji_mnist.get_kuzushiji_mnist, kuzushiji_mnist._BASE),
}


def _idx(array, code):
    header = struct.pack('>BBBB', 0, 0, code, array.ndim)
    header += b''.join(struct.pack('>I', n) for n in array.shape)
    return gzip.compress(header + array.tobytes())


def _serve_split(serve_known, base, prefix, n, rng):
    images = rng.randint(0, 256, size=(n, 28, 28)).astype(numpy.uint8)
    labels = rng.randint(0, 10, size=n).astype(numpy.uint8)
    serve_known(f'{base}{prefix}-images-idx3-ubyte.gz', _idx(images, 0x08))
    serve_known(f'{base}{prefix}-labels-idx1-ubyte.gz', _idx(labels, 0x08))
    return images, labels


@pytest.fixture(params=sorted(GETTERS))
def served(request, serve_known):
    getter, base = GETTERS[request.param]
    rng = numpy.random.RandomState(0)
    train = _serve_split(serve_known, base, 'train', 5, rng)
    test = _serve_split(serve_known, base, 't10k', 3, rng)
    return getter, train, test


@pytest.mark.parametrize('ndim,rgb_format,shape', [
    (1, False, (784,)), (2, False, (28, 28)), (3, False, (1, 28, 28)),
    (3, True, (3, 28, 28)), (1, True, (784,))])
@pytest.mark.parametrize('scale,dtype,label_dtype', [
    (1., None, numpy.int32), (255., numpy.float64, numpy.int64),
    (2., numpy.float16, numpy.uint8)])
def test_with_label(served, ndim, rgb_format, shape, scale, dtype, label_dtype):
    getter, (train_x, train_y), (test_x, test_y) = served
    train, test = getter(withlabel=True, ndim=ndim, scale=scale, dtype=dtype,
                         label_dtype=label_dtype, rgb_format=rgb_format)
    expected_dtype = numpy.dtype(dtype) if dtype is not None else catena.get_dtype()
    for ds, xs, ys in ((train, train_x, train_y), (test, test_x, test_y)):
        assert len(ds) == len(xs)
        for i in range(len(xs)):
            x, y = ds[i]
            assert x.shape == shape and x.dtype == expected_dtype
            assert y.dtype == numpy.dtype(label_dtype) and y == ys[i]
            want = xs[i].astype(numpy.float64) * (scale / 255.)
            if rgb_format and ndim == 3:
                want = numpy.broadcast_to(want, (3, 28, 28))
            numpy.testing.assert_allclose(
                x.astype(numpy.float64), want.reshape(shape),
                rtol=1e-3 if expected_dtype == numpy.float16 else 1e-6)


def test_without_label_and_cache(served, server):
    getter, (train_x, _), (test_x, _) = served
    train, test = getter(withlabel=False)
    assert isinstance(train, numpy.ndarray) and train.shape == (5, 784)
    assert test.shape == (3, 784)
    numpy.testing.assert_allclose(train, train_x.reshape(5, -1) / 255., rtol=1e-6)
    hits = sum(server.hits.values())
    # A second call reads the .npz cache: no request.
    train2, _ = getter(withlabel=False, ndim=2)
    assert sum(server.hits.values()) == hits
    assert train2.shape == (5, 28, 28)


def test_invalid_ndim(served):
    getter = served[0]
    with pytest.raises(ValueError, match='ndim'):
        getter(ndim=4)


def test_bad_idx_file(serve_known):
    bad = gzip.compress(b'\x01\x02\x03\x04hello')
    serve_known(mnist._BASE + 'train-images-idx3-ubyte.gz', bad)
    serve_known(mnist._BASE + 'train-labels-idx1-ubyte.gz', bad)
    with pytest.raises(ValueError, match='IDX'):
        mnist.get_mnist()


def test_labels():
    labels = fashion_mnist.get_fashion_mnist_labels()
    assert len(labels) == 10 and labels[0] == 'T-shirt/top' and labels[9] == 'Ankle boot'
    assert isinstance(labels, list)
    labels.append('x')
    assert len(fashion_mnist.get_fashion_mnist_labels()) == 10
    kl = kuzushiji_mnist.get_kuzushiji_mnist_labels()
    assert isinstance(kl, list) and len(kl) == 10
    assert kl[0] == ('o', '\u304a') and kl[9] == ('wo', '\u3092')


def test_pinned_checksums_registered():
    for base in (mnist._BASE, fashion_mnist._BASE, kuzushiji_mnist._BASE):
        for name in ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz',
                     't10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'):
            entry = download.get_known_file(base + name)
            assert entry is not None and entry.sha256 is not None
            assert len(entry.sha256) == 64
    assert download.get_known_file(mnist._BASE + 'train-images-idx3-ubyte.gz').sha256 == (
        '440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609')
