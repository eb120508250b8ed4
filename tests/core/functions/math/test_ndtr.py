"""ndtr: forward against scipy.special.ndtr, gradients, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import sys

import numpy as np
import pytest
import scipy.special

import catena
import catena.functions as F
from catena import testing
from catena.functions.math import _special
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestNdtr(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-3.0, 3.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.ndtr(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(scipy.special.ndtr(x.astype(np.float64)), dtype=self.dtype),


def test_gradient_is_the_known_derivative():
    x = np.linspace(-3.0, 3.0, 7)
    v = catena.Variable(x)
    y = F.ndtr(v)
    assert type(y.creator).__name__ == 'Ndtr'
    y.grad = np.ones_like(x)
    y.backward()
    expected = np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(v.grad, expected, rtol=1e-12)


def test_non_float_input_is_rejected():
    with pytest.raises(InvalidType, match='x'):
        F.ndtr(np.arange(3, dtype=np.int32))


def test_missing_scipy_names_the_function(monkeypatch):
    monkeypatch.setattr(_special, '_loaded', {})
    monkeypatch.setitem(sys.modules, 'scipy.special', None)
    message = r'catena\.functions\.ndtr needs SciPy.*pip install scipy'
    with pytest.raises(ImportError, match=message):
        F.ndtr(np.array([0.5], dtype=np.float32))
