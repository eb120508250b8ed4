"""erf: forward against scipy.special.erf, gradients, errors."""

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
class TestErf(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-2.0, 2.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.erf(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(scipy.special.erf(x.astype(np.float64)), dtype=self.dtype),


def test_gradient_is_the_known_derivative():
    x = np.linspace(-2.0, 2.0, 7)
    v = catena.Variable(x)
    y = F.erf(v)
    assert type(y.creator).__name__ == 'Erf'
    y.grad = np.ones_like(x)
    y.backward()
    expected = 2 / np.sqrt(np.pi) * np.exp(-x * x)
    np.testing.assert_allclose(v.grad, expected, rtol=1e-12)


def test_non_float_input_is_rejected():
    with pytest.raises(InvalidType, match='x'):
        F.erf(np.arange(3, dtype=np.int32))


def test_missing_scipy_names_the_function(monkeypatch):
    monkeypatch.setattr(_special, '_loaded', {})
    monkeypatch.setitem(sys.modules, 'scipy.special', None)
    message = r'catena\.functions\.erf needs SciPy.*pip install scipy'
    with pytest.raises(ImportError, match=message):
        F.erf(np.array([0.5], dtype=np.float32))


def test_array_modules_without_special_functions_get_a_clear_error():
    with pytest.raises(NotImplementedError, match=r'catena\.functions\.erf .*somelib'):
        _special._special_module('somelib', 'erf')


def test_special_functions_of_another_array_module_are_looked_up(monkeypatch):
    # An array module named 'cupy' gets cupyx.scipy.special; here a stand-in.
    stand_in = type(sys)('stand_in_special')
    stand_in.erf = lambda x: x
    monkeypatch.setattr(_special, '_loaded', {'cupy': stand_in})
    assert _special._special_module('cupy', 'erf') is stand_in
    monkeypatch.setattr(_special, '_loaded', {})
    monkeypatch.setitem(sys.modules, 'cupyx.scipy.special', None)
    with pytest.raises(ImportError, match=r'cupyx\.scipy\.special'):
        _special._special_module('cupy', 'erf')
