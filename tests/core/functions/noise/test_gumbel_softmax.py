"""gumbel_softmax: softmax of log_p plus Gumbel noise over tau, gradients, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape_axis': [((3, 4), 1), ((2, 3, 4), 2), ((2, 3, 4), 0)],
    'tau': [0.5, 2.0],
}))
class TestGumbelSoftmax(testing.FunctionTestCase):
    """With the generator reseeded on each call, the noise is NumPy's gumbel(size=shape)."""

    def before_test(self, test_name):
        if test_name == 'test_forward' and self.backend_config.device.name.startswith('@cupy'):
            self.skip_forward_test = True  # CuPy draws from its own generator
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        shape, _ = self.shape_axis
        return np.log(np.random.uniform(0.1, 1, shape)).astype(self.dtype),

    def forward(self, inputs, device):
        device.xp.random.seed(9)
        _, axis = self.shape_axis
        return F.gumbel_softmax(inputs[0], tau=self.tau, axis=axis),

    def forward_expected(self, inputs):
        log_p, = inputs
        _, axis = self.shape_axis
        np.random.seed(9)
        noise = np.random.gumbel(size=log_p.shape).astype(log_p.dtype)
        z = (log_p.astype(np.float64) + noise) / self.tau
        return _softmax(z, axis).astype(self.dtype),


def test_low_temperature_gives_one_hot_samples_at_the_probabilities():
    p = np.array([0.2, 0.5, 0.3])
    log_p = np.log(np.broadcast_to(p, (4000, 3))).astype(np.float32)
    y = F.gumbel_softmax(log_p, tau=1e-3).array
    np.testing.assert_allclose(y.sum(axis=1), 1, rtol=1e-6)
    assert (y.max(axis=1) > 0.99).mean() > 0.99  # nearly all one-hot (ties are rare)
    np.testing.assert_allclose(y.mean(axis=0), p, atol=0.03)


def test_a_single_category_gives_one():
    y = F.gumbel_softmax(np.array(-0.3, dtype=np.float32))
    assert y.shape == () and y.dtype == np.float32 and y.array == 1


def test_gradient_flows_to_log_p():
    log_p = catena.Variable(np.log(np.full((2, 3), 1 / 3)))
    y = F.gumbel_softmax(log_p, tau=1.0)
    F.sum(y * np.array([1.0, 2.0, 3.0])).backward()
    assert log_p.grad is not None and np.abs(log_p.grad).sum() > 0
    np.testing.assert_allclose(log_p.grad.sum(axis=1), 0, atol=1e-12)


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match='tau'):
        F.gumbel_softmax(np.zeros((2, 3), dtype=np.float32), tau=0)
    with pytest.raises(ValueError, match='log_p'):
        F.gumbel_softmax(np.zeros((2, 3), dtype=np.int32))
    with pytest.raises(InvalidType):
        F.gumbel_softmax(np.zeros((2, 3), dtype=np.float32), axis=2)
