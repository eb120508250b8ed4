"""elu and selu: x for x >= 0, alpha * (exp(x) - 1) below (selu scales it)."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _elu(x, alpha):
    x = x.astype(np.float64)
    return np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0)))


@testing.parameterize(*(testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4)],
    'alpha': [1.0, 0.5, 2.0],
}) + testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [()],
    'alpha': [0.5],
})))
class TestELU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape)
        x[np.abs(x) < 0.1] = 0.5  # away from the kink at 0 (alpha != 1)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.elu(x, alpha=self.alpha),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(_elu(x, self.alpha), dtype=self.dtype),


def test_elu_default_alpha_and_gradient():
    x = catena.Variable(np.array([-1.0, 0.0, 2.0]))
    y = F.elu(x)
    np.testing.assert_allclose(y.array, [np.exp(-1) - 1, 0.0, 2.0])
    y.grad = np.ones(3)
    y.backward()
    # the derivative is 1 from x = 0 on
    np.testing.assert_allclose(x.grad, [np.exp(-1), 1.0, 1.0])
    assert type(y.creator_node).__name__ == 'ELU'


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_elu_at_infinities_and_nan(dtype):
    x = np.array([-np.inf, np.inf, np.nan, -0.0], dtype)
    y = F.elu(x, alpha=0.5).array
    np.testing.assert_array_equal(y, np.array([-0.5, np.inf, np.nan, 0.0], dtype))
    assert y.dtype == dtype


def test_elu_third_order():
    # The grad node's own backward is built of differentiable nodes too.
    x = catena.Variable(np.array([-0.7, 1.5]))
    y = F.elu(x, alpha=2.0)
    g1, = catena.grad([y], [x], grad_outputs=[catena.Variable(np.ones(2))],
                      enable_double_backprop=True)
    g2, = catena.grad([g1], [x], grad_outputs=[catena.Variable(np.ones(2))],
                      enable_double_backprop=True)
    g3, = catena.grad([g2], [x], grad_outputs=[catena.Variable(np.ones(2))])
    expected = [2.0 * np.exp(-0.7), 0.0]
    np.testing.assert_allclose(g2.array, expected)
    np.testing.assert_allclose(g3.array, expected)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'params': [{}, {'alpha': 1.5, 'scale': 0.8}],
}))
class TestSELU(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, (3, 4))
        x[np.abs(x) < 0.1] = 0.5
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.selu(x, **self.params),

    def forward_expected(self, inputs):
        x, = inputs
        alpha = self.params.get('alpha', SELU_ALPHA)
        scale = self.params.get('scale', SELU_SCALE)
        return np.asarray(scale * _elu(x, alpha), dtype=self.dtype),


def test_selu_defaults():
    y = F.selu(np.array([-1.0, 2.0]))
    np.testing.assert_allclose(y.array, [SELU_SCALE * SELU_ALPHA * (np.exp(-1) - 1),
                                         2 * SELU_SCALE])


@pytest.mark.parametrize('function, kwargs, name', [
    (F.elu, {'alpha': 'a'}, 'alpha'), (F.elu, {'alpha': float('inf')}, 'alpha'),
    (F.selu, {'alpha': None}, 'alpha'), (F.selu, {'scale': float('nan')}, 'scale'),
])
def test_bad_parameters(function, kwargs, name):
    with pytest.raises((TypeError, ValueError), match=f'{name} must'):
        function(np.zeros(3, np.float32), **kwargs)


@pytest.mark.parametrize('function', [F.elu, F.selu])
def test_integer_input_is_rejected(function):
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        function(np.zeros(3, np.int32))
