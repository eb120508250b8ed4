"""softplus: log(1 + exp(beta * x)) / beta, computed without overflow."""

# ruff: noqa: NPY002

import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*(testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4)],
    'beta': [1.0, 2.0, 0.5],
}) + testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [()],
    'beta': [2.0],
})))
class TestSoftplus(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.softplus(x, beta=self.beta),

    def forward_expected(self, inputs):
        x, = inputs
        y = np.log1p(np.exp(self.beta * x.astype(np.float64))) / self.beta
        return np.asarray(y, dtype=self.dtype),


def test_large_inputs_do_not_overflow():
    x = np.array([-1000.0, 0.0, 1000.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.softplus(x, beta=2.0)
    np.testing.assert_allclose(y.array, [0.0, np.log(2) / 2, 1000.0])


def test_default_beta_and_gradient():
    x = catena.Variable(np.array([-1.0, 0.0, 3.0]))
    y = F.softplus(x)
    np.testing.assert_allclose(y.array, np.log1p(np.exp(x.array)))
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(x.grad, 1 / (1 + np.exp(-x.array)))
    assert type(y.creator_node).__name__ == 'Softplus'


@pytest.mark.parametrize('beta', [np.array(1.5), np.array(2, np.int32), np.float32(1.5)])
def test_beta_may_be_a_numpy_scalar_or_0d_array(beta):
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    expected = np.log1p(np.exp(float(beta) * x.astype(np.float64))) / float(beta)
    y = F.softplus(x, beta=beta)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)


@pytest.mark.parametrize('beta, error', [(0, ValueError), ('1', TypeError),
                                         (float('nan'), ValueError),
                                         (np.ones(2), TypeError),
                                         (np.array(True), TypeError)])
def test_bad_beta(beta, error):
    with pytest.raises(error, match='beta must'):
        F.softplus(np.zeros(3, np.float32), beta=beta)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.softplus(np.zeros(3, np.int32))
