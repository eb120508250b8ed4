"""exp, log, log2 and log10."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

# name -> (reference formula, low, high)
CASES = {
    'exp': (lambda x: math.e ** x, -2.0, 2.0),
    'log': (np.log, 0.5, 3.0),
    'log2': (lambda x: np.log(x) / math.log(2.0), 0.5, 3.0),
    'log10': (lambda x: np.log(x) / math.log(10.0), 0.5, 3.0),
}


@testing.parameterize(*testing.product({
    'name': sorted(CASES),
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestExponential(testing.FunctionTestCase):

    def generate_inputs(self):
        _, low, high = CASES[self.name]
        return np.random.uniform(low, high, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.name)(x),

    def forward_expected(self, inputs):
        x, = inputs
        reference = CASES[self.name][0]
        return np.asarray(reference(x.astype(np.float64)), dtype=self.dtype),


def test_values_at_known_points():
    np.testing.assert_allclose(F.exp(np.array([0.0, 1.0])).array, [1.0, math.e])
    np.testing.assert_allclose(F.log(np.array([1.0, math.e])).array, [0.0, 1.0])
    np.testing.assert_allclose(F.log2(np.array([1.0, 0.5, 1024.0])).array, [0.0, -1.0, 10.0])
    np.testing.assert_allclose(F.log10(np.array([1.0, 0.01, 1e5])).array, [0.0, -2.0, 5.0])


@pytest.mark.parametrize(('name', 'derivative'), [
    ('exp', lambda x: np.exp(x)),
    ('log', lambda x: 1 / x),
    ('log2', lambda x: 1 / (x * math.log(2.0))),
    ('log10', lambda x: 1 / (x * math.log(10.0))),
])
def test_gradient_formula(name, derivative):
    x = catena.Variable(np.array([0.5, 1.0, 4.0]))
    F.sum(getattr(F, name)(x)).backward()
    np.testing.assert_allclose(x.grad, derivative(x.array), rtol=1e-12)


@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_dtype_is_kept(dtype):
    x = np.array([1.0, 2.0], dtype)
    for name in CASES:
        y = getattr(F, name)(catena.Variable(x))
        assert y.dtype == dtype
        y.grad = np.ones_like(x)
        y.backward()


@pytest.mark.parametrize('name', sorted(CASES))
def test_integer_input_is_rejected(name):
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        getattr(F, name)(np.arange(1, 4))
