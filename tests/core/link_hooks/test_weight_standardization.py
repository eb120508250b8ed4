import numpy as np
import pytest

import catena
from catena import LinkHook, Parameter, gradient_check, links as L
from catena.link_hooks import WeightStandardization

DTYPES = [np.float16, np.float32, np.float64]
TOL = {np.float16: {'atol': 5e-3, 'rtol': 5e-3}, np.float32: {'atol': 1e-5, 'rtol': 1e-5},
       np.float64: {'atol': 1e-12, 'rtol': 1e-12}}


class CaptureWeight(LinkHook):
    name = 'CaptureWeight'

    def forward_preprocess(self, args):
        self.W = args.link.W


def standardized(W, axis, eps):
    moved = np.moveaxis(np.asarray(W, np.float64), axis, 0)
    matrix = moved.reshape(moved.shape[0], -1)
    mean = matrix.mean(axis=1, keepdims=True)
    var = ((matrix - mean) ** 2).mean(axis=1, keepdims=True)
    return np.moveaxis(((matrix - mean) / np.sqrt(var + eps)).reshape(moved.shape), 0, axis)


def make_link(kind, dtype):
    with catena.using_config('dtype', dtype):
        initializer = catena.initializers.Uniform(2.0)
        if kind == 'linear':
            return L.Linear(6, 4, initialW=initializer, initial_bias=initializer), (3, 6), 0
        if kind == 'conv2d':
            return (L.Convolution2D(3, 5, 2, initialW=initializer, initial_bias=initializer),
                    (2, 3, 4, 4), 0)
        assert kind == 'deconv2d'
        return (L.Deconvolution2D(3, 5, 2, initialW=initializer, initial_bias=initializer),
                (2, 3, 3, 3), 1)


@pytest.mark.parametrize('kind', ['linear', 'conv2d', 'deconv2d'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward_matches_formula(kind, dtype):
    rng = np.random.default_rng(0)
    link, shape, axis = make_link(kind, dtype)
    original = link.W
    W = original.array.copy()
    x = rng.uniform(-1, 1, shape).astype(dtype)
    with catena.using_config('train', False):
        expected_y = type(link).forward(_with_weight(link, standardized(W, axis, 1e-3)), x)
    link.add_hook(WeightStandardization(eps=1e-3))
    capture = CaptureWeight()
    link.add_hook(capture)
    y = link(x)
    assert capture.W.dtype == dtype
    np.testing.assert_allclose(capture.W.array, standardized(W, axis, 1e-3), **TOL[dtype])
    np.testing.assert_allclose(y.array, expected_y.array,
                               **(TOL[dtype] if dtype != np.float16 else
                                  {'atol': 3e-2, 'rtol': 3e-2}))
    assert link.W is original
    np.testing.assert_array_equal(link.W.array, W)


def _with_weight(link, W):
    """A copy of ``link`` whose weight is ``W`` (cast to the link's dtype)."""
    twin = link.copy('copy')
    twin.W.array[...] = W
    return twin


@pytest.mark.parametrize('kind', ['linear', 'conv2d', 'deconv2d'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_gradient(kind, dtype):
    rng = np.random.default_rng(1)
    link, shape, _ = make_link(kind, dtype)
    link.add_hook(WeightStandardization())
    x = rng.uniform(-1, 1, shape).astype(dtype)
    gy = rng.uniform(-1, 1, link(x).shape).astype(dtype)
    tol = {'atol': 5e-2, 'rtol': 5e-2} if dtype == np.float16 else {'atol': 1e-4, 'rtol': 1e-3}
    gradient_check.check_backward(link, x, gy, params=tuple(link.params()), dtype=np.float64,
                                  **tol)


def test_name_lazy_weight_and_delete():
    link = L.Convolution2D(None, 4, 3)
    hook = WeightStandardization(name='ws')
    link.add_hook(hook)
    assert list(link.local_link_hooks) == ['ws']
    capture = CaptureWeight()
    link.add_hook(capture)
    link(np.ones((1, 2, 3, 3), np.float32))
    assert link.W.shape == (4, 2, 3, 3)
    np.testing.assert_allclose(capture.W.array.std(axis=(1, 2, 3)), 1, rtol=1e-3)
    link.delete_hook('ws')
    link(np.ones((1, 2, 3, 3), np.float32))
    assert capture.W is link.W  # no longer standardized


def test_bad_arguments_and_misuse():
    with pytest.raises(ValueError, match='eps'):
        WeightStandardization(eps=-1)
    with pytest.raises(ValueError, match='weight_name'):
        WeightStandardization(weight_name='')
    with pytest.raises(NotImplementedError, match='add_hook'):
        with WeightStandardization():
            pass
    link = L.Linear(3, 2)
    with pytest.raises(ValueError, match="'V'"):
        link.add_hook(WeightStandardization(weight_name='V'))
    vector = catena.Link()
    with vector.init_scope():
        vector.W = Parameter(np.ones(3, np.float32))
    vector.forward = lambda x: x * vector.W
    vector.add_hook(WeightStandardization())
    with pytest.raises(ValueError, match='two axes'):
        vector(np.ones(3, np.float32))
    assert isinstance(vector.__dict__['W'], Parameter)
