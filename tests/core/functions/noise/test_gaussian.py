"""gaussian: reparameterized sampling, gradients for mean and ln_var, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestGaussian(testing.FunctionTestCase):

    def setUp(self):
        self.eps = np.asarray(np.random.RandomState(2).standard_normal(self.shape),
                              dtype=self.dtype)

    def before_test(self, test_name):
        self.double = test_name == 'test_double_backward'

    def generate_inputs(self):
        mean = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        ln_var = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return mean, ln_var

    def forward(self, inputs, device):
        mean, ln_var = inputs
        if self.double:
            # The gradient of mean is the output gradient itself. catena.grad and
            # check_backward currently drop the own gradient of an output that is a
            # leaf (here the output gradient the check feeds in); the product keeps
            # the first-order gradient of mean off the leaf.
            mean = mean * 1.0
        return F.gaussian(mean, ln_var, eps=device.send(self.eps)),

    def forward_expected(self, inputs):
        mean, ln_var = inputs
        sigma = np.exp(ln_var.astype(np.float64) / 2)
        return np.asarray(mean + sigma * self.eps, dtype=self.dtype),


def test_drawn_noise_is_returned_and_reproducible():
    mean = np.random.uniform(-1, 1, (50, 40)).astype(np.float32)
    ln_var = np.random.uniform(-1, 1, (50, 40)).astype(np.float32)
    np.random.seed(4)
    y, eps = F.gaussian(catena.Variable(mean), ln_var, return_eps=True)
    assert type(y.creator).__name__ == 'Gaussian'
    assert eps.dtype == np.float32 and eps.shape == mean.shape
    np.testing.assert_allclose(y.array, mean + np.exp(ln_var / 2) * eps, rtol=1e-6)
    assert abs(eps.mean()) < 0.1 and abs(eps.std() - 1) < 0.1
    np.random.seed(4)
    np.testing.assert_array_equal(F.gaussian(mean, ln_var).array, y.array)


def test_it_samples_in_test_mode_too():
    zeros = np.zeros(100, dtype=np.float32)
    with catena.using_config('train', False):
        y = F.gaussian(zeros, zeros)
    assert np.count_nonzero(y.array) > 90


def test_gradient_of_ln_var_is_half_the_noise():
    mean = catena.Variable(np.zeros(4))
    ln_var = catena.Variable(np.log(np.array([1.0, 4.0, 9.0, 0.25])))
    eps = np.array([1.0, -1.0, 0.5, 2.0])
    y = F.gaussian(mean, ln_var, eps=eps)
    y.grad = np.ones(4)
    y.backward()
    np.testing.assert_allclose(mean.grad, np.ones(4))
    np.testing.assert_allclose(ln_var.grad, np.array([1.0, 2.0, 3.0, 0.5]) * eps / 2)


def test_mismatched_inputs_are_rejected():
    with pytest.raises(InvalidType, match='ln_var'):
        F.gaussian(np.zeros(3, dtype=np.float32), np.zeros(4, dtype=np.float32))
    with pytest.raises(InvalidType, match='ln_var'):
        F.gaussian(np.zeros(3, dtype=np.float32), np.zeros(3, dtype=np.float64))
    with pytest.raises(InvalidType, match='mean'):
        F.gaussian(np.zeros(3, dtype=np.int32), np.zeros(3, dtype=np.int32))


def test_eps_of_another_shape_is_rejected():
    with pytest.raises(ValueError, match='eps'):
        F.gaussian(np.zeros(3), np.zeros(3), eps=np.zeros(2))
