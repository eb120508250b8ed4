import numpy
import pytest

import catena
from catena.datasets import svhn

scipy_io = pytest.importorskip('scipy.io')


def _mat(tmp_path, name, rng, n):
    images = rng.randint(0, 256, size=(n, 3, 32, 32)).astype(numpy.uint8)
    labels = rng.randint(1, 11, size=n).astype(numpy.uint8)  # 10 stands for digit 0
    path = tmp_path / f'{name}.mat'
    scipy_io.savemat(str(path), {'X': images.transpose(2, 3, 1, 0), 'y': labels[:, None]})
    return path.read_bytes(), images, labels % 10


@pytest.fixture
def served(serve_known, tmp_path):
    rng = numpy.random.RandomState(3)
    out = {}
    for name, n in (('train', 4), ('test', 3), ('extra', 2)):
        data, x, y = _mat(tmp_path, name, rng, n)
        serve_known(f'{svhn._BASE}{name}_32x32.mat', data)
        out[name] = (x, y)
    return out


@pytest.mark.parametrize('withlabel', [True, False])
@pytest.mark.parametrize('scale,dtype,label_dtype', [
    (1., None, numpy.int32), (255., numpy.float64, numpy.int64)])
@pytest.mark.parametrize('add_extra', [False, True])
def test_get_svhn(served, withlabel, scale, dtype, label_dtype, add_extra):
    result = svhn.get_svhn(withlabel=withlabel, scale=scale, dtype=dtype,
                           label_dtype=label_dtype, add_extra=add_extra)
    names = ('train', 'test', 'extra') if add_extra else ('train', 'test')
    assert len(result) == len(names)
    want_dtype = numpy.dtype(dtype) if dtype is not None else catena.get_dtype()
    for ds, name in zip(result, names):
        xs, ys = served[name]
        assert len(ds) == len(xs)
        for i in range(len(xs)):
            if withlabel:
                x, y = ds[i]
                assert y.dtype == numpy.dtype(label_dtype) and y == ys[i]
            else:
                x = ds[i]
            assert x.shape == (3, 32, 32) and x.dtype == want_dtype
            numpy.testing.assert_allclose(x.astype(numpy.float64),
                                          xs[i] * (scale / 255.), rtol=1e-6)


def test_missing_scipy_message(monkeypatch, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith('scipy'):
            raise ImportError('no scipy')
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(svhn, '_scipy_io', None)
    monkeypatch.setattr(builtins, '__import__', fake_import)
    with pytest.raises(ImportError, match='pip install scipy'):
        svhn._loadmat(str(tmp_path / 'x.mat'))
