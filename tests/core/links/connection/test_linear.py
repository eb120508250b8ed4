"""Linear link: forward/backward on every device, lazy in_size, initializers, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import backend, initializers, testing
from catena.links.connection.linear import Linear


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape_axes': [((4, 3), 1), ((2, 3, 2), 1), ((2, 3, 2), 2)],
    'nobias': [False, True],
}))
class TestLinear(testing.LinkTestCase):

    out_size = 5

    @property
    def x_shape(self):
        return self.shape_axes[0]

    @property
    def n_batch_axes(self):
        return self.shape_axes[1]

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def _in_size(self):
        return int(np.prod(self.x_shape[self.n_batch_axes:]))

    def generate_params(self):
        W = np.random.uniform(-1, 1, (self.out_size, self._in_size())).astype(self.dtype)
        b = np.random.uniform(-1, 1, self.out_size).astype(self.dtype)
        return W, b

    def create_link(self, initializers):
        W, b = initializers
        return Linear(self._in_size(), self.out_size, nobias=self.nobias, initialW=W,
                      initial_bias=None if self.nobias else b)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward(self, link, inputs, device):
        x, = inputs
        return link(x, n_batch_axes=self.n_batch_axes),

    def forward_expected(self, link, inputs):
        x, = inputs
        batch = x.shape[:self.n_batch_axes]
        x2 = x.reshape(int(np.prod(batch)), -1).astype(np.float64)
        W = link.W.array.astype(np.float64)
        y = x2 @ W.T
        if not self.nobias:
            y += link.b.array
        return y.reshape(batch + (self.out_size,)).astype(self.dtype),


def test_arguments_and_bias_default():
    link = Linear(3, 2)
    assert (link.in_size, link.out_size) == (3, 2)
    assert link.W.shape == (2, 3) and link.W.dtype == np.float32
    np.testing.assert_array_equal(link.b.array, np.zeros(2, np.float32))
    assert Linear(3, 2, nobias=True).b is None
    assert sorted(name for name, _ in link.namedparams()) == ['/W', '/b']


def test_scalar_and_initializer_arguments():
    link = Linear(3, 2, initialW=0.5, initial_bias=initializers.Constant(2.0))
    np.testing.assert_array_equal(link.W.array, np.full((2, 3), 0.5, np.float32))
    np.testing.assert_array_equal(link.b.array, np.full(2, 2.0, np.float32))
    with pytest.raises(TypeError, match='initializer'):
        Linear(3, 2, initialW='normal')


def test_default_weight_is_lecun_normal():
    if not hasattr(initializers, 'LeCunNormal'):
        pytest.skip('catena.initializers.LeCunNormal is not there yet')
    in_size = 400
    W = Linear(in_size, 300).W.array
    assert abs(W.mean()) < 0.01
    assert abs(W.std() - 1 / np.sqrt(in_size)) < 0.1 / np.sqrt(in_size)


def test_lazy_in_size():
    x = np.random.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    for link in (Linear(None, 5, initialW=initializers.Constant(0.25)),
                 Linear(5, initialW=initializers.Constant(0.25))):
        assert link.W.array is None and link.in_size is None
        y = link(x)
        assert link.W.shape == (5, 12) and link.in_size == 12
        np.testing.assert_allclose(y.array, np.repeat(x.reshape(2, 12).sum(1, keepdims=True)
                                                      * 0.25, 5, axis=1), rtol=1e-6)
    link = Linear(None, 5, initialW=initializers.Constant(1.0))
    assert link(x, n_batch_axes=2).shape == (2, 3, 5)
    assert link.W.shape == (5, 4)


def test_lazy_in_size_on_fake_device():
    link = Linear(None, 2, initialW=initializers.Constant(1.0))
    link.to_device('@fake')
    device = backend.get_device('@fake')
    x = device.send_array(np.ones((3, 4), np.float32))
    y = link(x)
    assert backend.get_device_from_array(link.W.array) == device
    assert backend.get_device_from_array(y.array) == device
    np.testing.assert_array_equal(np.asarray(y.array), np.full((3, 2), 4.0, np.float32))


def test_lazy_in_size_error():
    link = Linear(None, 3)
    with pytest.raises(ValueError, match=r'in_size.*x.shape=\(4,\)'):
        link(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match='in_size'):
        link(np.zeros((4, 0), np.float32))
    assert link.W.array is None


def test_mismatched_input_raises():
    link = Linear(3, 2)
    with pytest.raises(catena.utils.type_check.InvalidType):
        link(np.zeros((4, 5), np.float32))


def test_dtype_follows_config():
    with catena.using_config('dtype', np.float64):
        link = Linear(3, 2, initialW=initializers.Constant(1.0))
    assert link.W.dtype == np.float64 and link.b.dtype == np.float64


def test_from_params():
    W = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.0, -1.0], np.float32)
    link = Linear.from_params(W, b)
    assert (link.in_size, link.out_size) == (3, 2)
    np.testing.assert_array_equal(link.W.array, W)
    np.testing.assert_array_equal(link.b.array, b)
    assert link.W.array is not W
    assert Linear.from_params(W, nobias=True).b is None
    with pytest.raises(ValueError, match='b must have shape'):
        Linear.from_params(W, np.zeros(3, np.float32))


def test_repr():
    assert repr(Linear(3, 2)) == 'Linear(in_size=3, out_size=2, nobias=False)'
    assert repr(Linear(2, nobias=True)) == 'Linear(in_size=None, out_size=2, nobias=True)'


def test_from_params_takes_parameters():
    source = Linear(3, 2)
    source.b.array[...] = 1
    link = Linear.from_params(source.W, source.b)
    np.testing.assert_array_equal(link.W.array, source.W.array)
    np.testing.assert_array_equal(link.b.array, source.b.array)
