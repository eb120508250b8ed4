"""batch_renormalization and fixed_batch_renormalization."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expand(v, x_ndim):
    return v.reshape((1,) + v.shape + (1,) * (x_ndim - v.ndim - 1))


def _reference(x, gamma, beta, running_mean, running_var, rmax, dmax, eps):
    x64 = x.astype(np.float64)
    axes = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
    mean, var = x64.mean(axis=axes), x64.var(axis=axes)
    std, sigma = np.sqrt(var + eps), np.sqrt(running_var.astype(np.float64) + eps)
    r = np.clip(std / sigma, 1 / rmax, rmax)
    d = np.clip((mean - running_mean) / sigma, -dmax, dmax)
    e = lambda v: _expand(np.asarray(v, np.float64), x.ndim)
    return e(gamma) * ((x64 - e(mean)) / e(std) * e(r) + e(d)) + e(beta)


@testing.parameterize(*testing.product({
    'shapes': [((5, 3), (3,)), ((3, 4, 2, 2), (4,)), ((3, 2, 3), (2, 3))],
    'dtype': [np.float16, np.float32, np.float64],
    # saturated: r and d sit at their bounds, where they are constant, so the
    # numerical gradient agrees with backprop treating them as constants.
    'saturated': [True, False],
}))
class TestBatchRenormalization(testing.FunctionTestCase):

    rmax, dmax, eps = 3.0, 0.5, 2e-5

    def before_test(self, test_name):
        if not self.saturated:
            self.skip_backward_test = self.skip_double_backward_test = True
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x_shape, gamma_shape = self.shapes
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, gamma_shape).astype(self.dtype)
        beta = np.random.uniform(-1, 1, gamma_shape).astype(self.dtype)
        if self.saturated:
            self.running_mean = np.full(gamma_shape, 10, self.dtype)
            self.running_var = np.full(gamma_shape, 100, self.dtype)
        else:
            self.running_mean = np.random.uniform(-0.1, 0.1, gamma_shape).astype(self.dtype)
            self.running_var = np.random.uniform(0.2, 0.4, gamma_shape).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        running_mean = device.send_array(self.running_mean.copy())
        running_var = device.send_array(self.running_var.copy())
        return F.batch_renormalization(x, gamma, beta, self.rmax, self.dmax, self.eps,
                                       running_mean, running_var),

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        y = _reference(x, gamma, beta, self.running_mean, self.running_var, self.rmax,
                       self.dmax, self.eps)
        return y.astype(self.dtype),


def test_r_and_d_are_really_clipped_in_the_saturated_case():
    x = np.random.uniform(-1, 1, (5, 3))
    node = catena.functions.normalization.batch_renormalization.BatchRenormalizationFunction(
        2e-5, np.full(3, 10.0), np.full(3, 100.0), 0.9, 3.0, 0.5)
    node.apply((x, np.ones(3), np.zeros(3)))
    np.testing.assert_allclose(node.r, 1 / 3)
    np.testing.assert_allclose(node.d, -0.5)


@pytest.mark.parametrize('update_statistics', [True, False])
def test_update_statistics(update_statistics):
    x = np.random.uniform(-1, 1, (6, 2, 3))
    running_mean = np.random.uniform(-1, 1, 2)
    running_var = np.random.uniform(0.5, 1.5, 2)
    mean0, var0 = running_mean.copy(), running_var.copy()
    F.batch_renormalization(x, np.ones(2), np.zeros(2), 2.0, 1.0, running_mean=running_mean,
                            running_var=running_var, decay=0.7,
                            update_statistics=update_statistics)
    if update_statistics:
        np.testing.assert_allclose(running_mean, 0.7 * mean0 + 0.3 * x.mean(axis=(0, 2)))
        np.testing.assert_allclose(running_var,
                                   0.7 * var0 + 0.3 * x.var(axis=(0, 2), ddof=1))
    else:
        np.testing.assert_array_equal(running_mean, mean0)
        np.testing.assert_array_equal(running_var, var0)


def test_with_rmax_one_and_dmax_zero_it_is_batch_normalization():
    x = catena.Variable(np.random.uniform(-1, 1, (4, 3, 2)))
    gamma = catena.Variable(np.random.uniform(0.5, 1.5, 3))
    beta = catena.Variable(np.random.uniform(-1, 1, 3))
    gy = np.random.uniform(-1, 1, (4, 3, 2))
    y = F.batch_renormalization(x, gamma, beta, 1, 0, running_mean=np.zeros(3),
                                running_var=np.ones(3))
    y.grad = gy
    y.backward()
    grads = x.grad, gamma.grad, beta.grad
    for v in (x, gamma, beta):
        v.cleargrad()
    y2 = F.batch_normalization(x, gamma, beta)
    np.testing.assert_allclose(y.array, y2.array)
    y2.grad = gy
    y2.backward()
    for got, expected in zip(grads, (x.grad, gamma.grad, beta.grad)):
        np.testing.assert_allclose(got, expected)


def test_running_statistics_are_required():
    x = np.zeros((2, 3))
    with pytest.raises(TypeError, match='running_mean is required'):
        F.batch_renormalization(x, np.ones(3), np.zeros(3), 1, 0, running_var=np.ones(3))
    with pytest.raises(TypeError, match='running_var is required'):
        F.batch_renormalization(x, np.ones(3), np.zeros(3), 1, 0, running_mean=np.ones(3))


def test_gamma_not_matching_the_channels():
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == gamma\.shape\[0\]'):
        F.batch_renormalization(np.zeros((2, 3)), np.ones(4), np.zeros(4), 1, 0,
                                running_mean=np.zeros(4), running_var=np.ones(4))


def test_running_statistics_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r'running_var has shape \(2,\)'):
        F.batch_renormalization(np.zeros((2, 3)), np.ones(3), np.zeros(3), 1, 0,
                                running_mean=np.zeros(3), running_var=np.ones(2))


def test_fixed_batch_renormalization_is_deprecated_fixed_batch_normalization():
    x = np.random.uniform(-1, 1, (3, 2))
    gamma, beta = np.random.uniform(0.5, 1.5, 2), np.random.uniform(-1, 1, 2)
    mean, var = np.random.uniform(-1, 1, 2), np.random.uniform(0.5, 1.5, 2)
    with pytest.warns(DeprecationWarning, match='use fixed_batch_normalization'):
        y = F.fixed_batch_renormalization(x, gamma, beta, mean, var, eps=1e-3)
    np.testing.assert_allclose(y.array, gamma * (x - mean) / np.sqrt(var + 1e-3) + beta)
