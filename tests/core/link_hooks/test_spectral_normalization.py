import numpy as np
import pytest

import catena
from catena import LinkHook, Parameter, backend, gradient_check, links as L, testing
from catena.link_hooks import SpectralNormalization

DTYPES = [np.float16, np.float32, np.float64]
SV_TOL = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-5}  # eps=1e-6 biases sigma


class CaptureWeight(LinkHook):
    """Records the weight that the link's forward sees (added after the hook under test)."""

    name = 'CaptureWeight'

    def forward_preprocess(self, args):
        self.W = args.link.W


def make_link(kind, dtype):
    with catena.using_config('dtype', dtype):
        return _make_link(kind)


def _make_link(kind):
    initialW = catena.initializers.Normal(1.0)
    if kind == 'linear':
        return L.Linear(6, 4, initialW=initialW), (3, 6), 0
    if kind == 'conv2d':
        return L.Convolution2D(3, 5, 2, initialW=initialW), (2, 3, 4, 4), 0
    if kind == 'convnd':
        return L.ConvolutionND(1, 3, 5, 2, initialW=initialW), (2, 3, 4), 0
    if kind == 'deconv2d':
        return L.Deconvolution2D(3, 5, 2, initialW=initialW), (2, 3, 3, 3), 1
    if kind == 'deconvnd':
        return L.DeconvolutionND(1, 3, 5, 2, initialW=initialW), (2, 3, 3), 1
    assert kind == 'embed'
    return L.EmbedID(7, 4, initialW=initialW), None, 0


def make_input(kind, shape, dtype, rng):
    if kind == 'embed':
        return rng.integers(0, 7, size=(5,)).astype(np.int32)
    return rng.uniform(-1, 1, shape).astype(dtype)


def largest_singular_value(W, axis):
    W = np.moveaxis(np.asarray(W, np.float64), axis, 0)
    return np.linalg.svd(W.reshape(W.shape[0], -1), compute_uv=False)[0]


KINDS = ['linear', 'conv2d', 'convnd', 'deconv2d', 'deconvnd', 'embed']


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('dtype', DTYPES)
@testing.fix_random()  # the power iteration is slow when the top singular values are close
def test_normalized_weight_has_unit_spectral_norm(kind, dtype):
    rng = np.random.default_rng(0)
    link, shape, axis = make_link(kind, dtype)
    link.add_hook(SpectralNormalization(n_power_iteration=1000))
    capture = CaptureWeight()
    link.add_hook(capture)
    assert link.W_u.shape == (link.W.shape[axis],)
    assert link.W_u.dtype == dtype
    original = link.W
    before = original.array.copy()
    y = link(make_input(kind, shape, dtype, rng))
    assert y.dtype == dtype
    assert isinstance(capture.W, catena.Variable) and capture.W is not original
    assert capture.W.dtype == dtype
    assert largest_singular_value(capture.W.array, axis) == pytest.approx(1, abs=SV_TOL[dtype])
    assert largest_singular_value(before, axis) > 1.5  # so that the check above means something
    # The weight is restored, still registered, and unchanged.
    assert link.W is original
    assert 'W' in link._params and [p.name for p in link.params()].count('W') == 1
    np.testing.assert_array_equal(link.W.array, before)


@pytest.mark.parametrize('dtype', DTYPES)
@testing.fix_random()
def test_factor_and_gamma(dtype):
    with catena.using_config('dtype', dtype):
        link = L.Linear(5, 3, initialW=catena.initializers.Normal(1.0))
    sigma0 = largest_singular_value(link.W.array, 0)
    link.add_hook(SpectralNormalization(n_power_iteration=1000, use_gamma=True, factor=2.0))
    assert link.gamma.shape == ()
    assert float(link.gamma.array) == pytest.approx(sigma0, rel=SV_TOL[dtype])
    assert 'gamma' in link._params
    link.gamma.array[...] = 3
    capture = CaptureWeight()
    link.add_hook(capture)
    link(np.ones((2, 5), dtype))
    assert largest_singular_value(capture.W.array, 0) == pytest.approx(6, rel=SV_TOL[dtype])


@pytest.mark.parametrize('kind', ['linear', 'conv2d', 'deconv2d', 'embed'])
@pytest.mark.parametrize('use_gamma', [False, True])
def test_gradient_in_test_mode(kind, use_gamma):
    rng = np.random.default_rng(1)
    link, shape, _ = make_link(kind, np.float64)
    link.add_hook(SpectralNormalization(n_power_iteration=2, use_gamma=use_gamma))
    link(make_input(kind, shape, np.float64, rng))  # a train step moves u first
    x = make_input(kind, shape, np.float64, rng)
    gy = rng.uniform(-1, 1, link(x).shape)
    params = tuple(link.params())
    u = link.W_u.copy()

    def forward(x):
        return link(x)

    with catena.using_config('train', False):
        gradient_check.check_backward(forward, x, gy, params=params, atol=1e-6, rtol=1e-5,
                                      dtype=np.float64)
    np.testing.assert_array_equal(link.W_u, u)


@pytest.mark.parametrize('dtype', DTYPES)
def test_gradient_with_fixed_u_in_train_mode(dtype):
    rng = np.random.default_rng(2)
    with catena.using_config('dtype', dtype):
        link = L.Linear(4, 3, initialW=catena.initializers.Normal(1.0))
    link.add_hook(SpectralNormalization(n_power_iteration=0))
    u = link.W_u.copy()
    x = rng.uniform(-1, 1, (2, 4)).astype(dtype)
    gy = rng.uniform(-1, 1, (2, 3)).astype(dtype)
    tol = {'atol': 5e-2, 'rtol': 5e-2} if dtype == np.float16 else {'atol': 1e-4, 'rtol': 1e-3}
    gradient_check.check_backward(link, x, gy, params=(link.W, link.b), dtype=np.float64,
                                  **tol)
    np.testing.assert_array_equal(link.W_u, u)


def test_gradient_reaches_w_through_sigma():
    # Written out: y = x (W / sigma)^T with sigma = u^T W v and v = W^T u / |W^T u|,
    # so dL/dW = G / sigma - (sum(G * W) / sigma^2) u v^T with G = gy^T x.
    rng = np.random.default_rng(3)
    link = L.Linear(4, 3, nobias=True, initialW=catena.initializers.Normal(1.0, np.float64))
    link.add_hook(SpectralNormalization(eps=0))
    W, u = link.W.array.copy(), link.W_u.copy()
    x = rng.uniform(-1, 1, (2, 4))
    gy = rng.uniform(-1, 1, (2, 3))
    link.cleargrads()
    with catena.using_config('train', False):
        y = link(x)
    y.grad = gy
    y.backward()
    v = W.T @ u / np.linalg.norm(W.T @ u)
    sigma = u @ W @ v
    G = gy.T @ x
    expected = G / sigma - (np.sum(G * W) / sigma ** 2) * np.outer(u, v)
    np.testing.assert_allclose(y.array, x @ (W / sigma).T, rtol=1e-12)
    np.testing.assert_allclose(link.W.grad, expected, rtol=1e-10)


def test_u_updated_in_place_in_train_mode_only():
    link = L.Linear(5, 4)
    link.add_hook(SpectralNormalization())
    u = link.W_u
    before = u.copy()
    x = np.ones((2, 5), np.float32)
    with catena.using_config('train', False):
        y_test_before = link(x).array
    np.testing.assert_array_equal(u, before)
    with catena.using_config('in_recomputing', True):
        link(x)
    np.testing.assert_array_equal(u, before)
    y_train = link(x).array
    assert link.W_u is u
    assert not np.allclose(u, before)
    assert np.linalg.norm(u) == pytest.approx(1, rel=1e-5)
    with catena.using_config('train', False):
        y_test_after = link(x).array
    # A test-mode forward uses the u the train-mode forward stored.
    np.testing.assert_allclose(y_test_after, y_train, rtol=1e-5, atol=1e-6)
    assert not np.allclose(y_test_before, y_train)


@pytest.mark.parametrize('dtype', DTYPES)
def test_v_is_kept_and_reproduced_exactly_when_recomputing(dtype):
    link, shape, _ = make_link('conv2d', dtype)
    hook = SpectralNormalization()
    assert hook.v is None
    link.add_hook(hook)
    x = make_input('conv2d', shape, dtype, np.random.default_rng(1))
    y_train = link(x).array
    u_train, v_train = link.W_u.copy(), hook.v.copy()
    assert v_train.shape == (3 * 2 * 2,)
    assert np.linalg.norm(v_train.astype(np.float64)) == pytest.approx(1, rel=1e-3)
    with catena.using_config('in_recomputing', True):
        y_again = link(x).array
    np.testing.assert_array_equal(link.W_u, u_train)
    np.testing.assert_array_equal(hook.v, v_train)
    # The same weight again; the product may differ in the last bit with the
    # buffers' alignment, which BLAS kernels may depend on.
    np.testing.assert_allclose(y_again, y_train, rtol=1e-6, atol=1e-7)
    with catena.using_config('train', False):
        link(x)
        v_test = hook.v.copy()
        link(x)
    np.testing.assert_array_equal(hook.v, v_test)
    np.testing.assert_array_equal(v_test, v_train)


def test_lazy_weight_is_prepared_at_first_call():
    link = L.Linear(None, 4)
    link.add_hook(SpectralNormalization(use_gamma=True))
    assert not hasattr(link, 'W_u') and not hasattr(link, 'gamma')
    link(np.ones((2, 3, 2), np.float32))
    assert link.W.shape == (4, 6)
    assert link.W_u.shape == (4,) and link.gamma.shape == ()
    conv = L.Deconvolution2D(None, 6, 2)
    conv.add_hook(SpectralNormalization())
    conv(np.ones((1, 3, 2, 2), np.float32))
    assert conv.W.shape == (3, 6, 2, 2) and conv.W_u.shape == (6,)


def test_deleted_removes_what_added_registered():
    link = L.Linear(3, 2)
    hook = SpectralNormalization(use_gamma=True, name='sn')
    link.add_hook(hook)
    assert set(link._persistent) == {'W_u'} and 'gamma' in link._params
    link.delete_hook('sn')
    assert not hasattr(link, 'W_u') and not hasattr(link, 'gamma')
    assert not link._persistent and sorted(link._params) == ['W', 'b']
    link.add_hook(hook)  # can be added again
    assert hasattr(link, 'W_u')
    lazy = L.Linear(None, 2)
    lazy.add_hook(SpectralNormalization())
    lazy.delete_hook('SpectralNormalization')  # never prepared: nothing to remove
    assert not lazy._persistent


class DictSerializer:
    """Stores (saving) or returns (loading) values by key, as Link.serialize expects."""

    def __init__(self, store, loading):
        self.store = store
        self.loading = loading

    def __call__(self, key, value):
        if self.loading:
            stored = self.store[key]
            if value is None or np.ndim(value) == 0:
                return stored
            value[...] = stored
            return value
        self.store[key] = None if value is None else np.array(value)
        return value


def test_u_is_serialized():
    x = np.ones((2, 5), np.float32)
    source = L.Linear(5, 4).add_hook(SpectralNormalization())
    for _ in range(3):
        source(x)
    store = {}
    source.serialize(DictSerializer(store, loading=False))
    assert set(store) == {'W', 'b', 'W_u'}
    target = L.Linear(5, 4).add_hook(SpectralNormalization())
    assert not np.allclose(target.W_u, source.W_u)
    target.serialize(DictSerializer(store, loading=True))
    np.testing.assert_array_equal(target.W_u, source.W_u)
    with catena.using_config('train', False):
        np.testing.assert_array_equal(target(x).array, source(x).array)


def test_weight_restored_after_a_failed_forward():
    link = L.Linear(3, 2)
    original = link.W
    link.add_hook(SpectralNormalization())
    with pytest.raises(Exception):
        link(np.ones((2, 4), np.float32))
    link(np.ones((2, 3), np.float32))
    assert link.W is original
    with pytest.raises(Exception):
        link(np.ones((2, 4), np.float32))
    link.delete_hook('SpectralNormalization')
    assert link.W is original and not hasattr(link, 'W_u')


def test_runs_on_another_device():
    link = L.Linear(3, 2).add_hook(SpectralNormalization(use_gamma=True))
    link.to_device('@fake')
    device = backend.get_device('@fake')
    x = device.send(np.ones((2, 3), np.float32))
    y = link(x)
    assert backend.get_device_from_array(y.array) == device
    assert backend.get_device_from_array(link.W_u) == device
    fresh = L.Linear(3, 2)
    fresh.to_device('@fake')
    fresh.add_hook(SpectralNormalization(use_gamma=True))
    assert backend.get_device_from_array(fresh.W_u) == device
    assert backend.get_device_from_array(fresh.gamma.array) == device


def test_bad_arguments_and_misuse():
    for kwargs in ({'n_power_iteration': -1}, {'n_power_iteration': 1.5},
                   {'n_power_iteration': True}, {'eps': -1}, {'factor': 0},
                   {'weight_name': 'not a name'}):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            SpectralNormalization(**kwargs)
    with pytest.raises(NotImplementedError, match='add_hook'):
        with SpectralNormalization():
            pass
    assert catena._link_hooks.get_link_hooks() == {}
    link = L.Linear(3, 2)
    with pytest.raises(ValueError, match="'V'"):
        link.add_hook(SpectralNormalization(weight_name='V'))
    assert link.local_link_hooks == {}
    link.add_hook(SpectralNormalization())
    with pytest.raises(ValueError, match="'W_u'"):
        link.add_hook(SpectralNormalization(), name='second')
    gamma_taken = L.Linear(3, 2)
    with gamma_taken.init_scope():
        gamma_taken.gamma = Parameter(np.ones(()))
    with pytest.raises(ValueError, match="'gamma'"):
        gamma_taken.add_hook(SpectralNormalization(use_gamma=True))
    assert not hasattr(gamma_taken, 'W_u')
    empty = catena.Link()
    with empty.init_scope():
        empty.W = Parameter(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match='empty'):
        empty.add_hook(SpectralNormalization())
