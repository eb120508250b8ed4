"""lstm: interleaved gates, shrinking batches, gradients of any order, argument errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import gradient_check, testing
from catena.functions.rnn.lstm import LSTMGrad
from catena.utils.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _reference(c_prev, x):
    """c = tanh(a) sigmoid(i) + sigmoid(f) c_prev, h = sigmoid(o) tanh(c), per row of x."""
    batch, n_units = x.shape[0], c_prev.shape[1]
    xd, cd = x.astype(np.float64), c_prev.astype(np.float64)
    c = cd.copy()
    h = np.empty((batch, n_units) + c_prev.shape[2:])
    for b in range(batch):
        for u in range(n_units):
            a, i, f, o = (xd[b, 4 * u + k] for k in range(4))
            c[b, u] = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * cd[b, u]
            h[b, u] = _sigmoid(o) * np.tanh(c[b, u])
    return c.astype(x.dtype), h.astype(x.dtype)


@testing.parameterize(*(testing.product({
    'shapes': [((3, 2), (3, 8)),          # plain
               ((4, 3, 2), (2, 12, 2)),   # trailing axis, batch shrinks
               ((5, 2), (0, 8)),          # no row updated
               ((3, 0), (2, 0))],         # no units
    'dtype': [np.float16, np.float32, np.float64],
    'grads': [(True, True)],
}) + testing.product({
    'shapes': [((3, 2), (2, 8))],
    'dtype': [np.float64],
    'grads': [(True, False), (False, True)],
})))
class TestLSTM(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        c_shape, x_shape = self.shapes
        return (np.random.uniform(-1, 1, c_shape).astype(self.dtype),
                np.random.uniform(-1, 1, x_shape).astype(self.dtype))

    def generate_grad_outputs(self, outputs_template):
        return tuple(np.random.uniform(-1, 1, t.shape).astype(t.dtype) if wanted else None
                     for t, wanted in zip(outputs_template, self.grads))

    def forward(self, inputs, device):
        return F.lstm(*inputs)

    def forward_expected(self, inputs):
        return _reference(*inputs)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('batch', [3, 2, 0])
def test_lstm_grad_node_recomputes_without_cache(dtype, batch):
    # LSTMGrad applied by itself (no activations cached from a forward pass),
    # and its own gradient, including the rows beyond the batch of x.
    rng = np.random.RandomState(1)
    c_prev = rng.uniform(-1, 1, (3, 2, 4)).astype(dtype)
    x = rng.uniform(-1, 1, (batch, 8, 4)).astype(dtype)
    gc = rng.uniform(-1, 1, (3, 2, 4)).astype(dtype)
    gh = rng.uniform(-1, 1, (batch, 2, 4)).astype(dtype)
    ggc = rng.uniform(-1, 1, (3, 2, 4)).astype(dtype)
    ggx = rng.uniform(-1, 1, (batch, 8, 4)).astype(dtype)

    gc_prev, gx = LSTMGrad().apply((c_prev, x, gc, gh))
    c_var, x_var = catena.Variable(c_prev), catena.Variable(x)
    c, h = F.lstm(c_var, x_var)
    catena.backward([c, h], [gc, gh])
    testing.assert_allclose(gc_prev.array, c_var.grad, atol=1e-6, rtol=1e-5)
    testing.assert_allclose(gx.array, x_var.grad, atol=1e-6, rtol=1e-5)

    tol = {'atol': 1e-4, 'rtol': 1e-3} if dtype == np.float64 else {'atol': 1e-3, 'rtol': 1e-2}
    gradient_check.check_backward(lambda *args: LSTMGrad().apply(args), (c_prev, x, gc, gh),
                                  (ggc, ggx), dtype=np.float64, **tol)


def test_third_order_gradient_is_built_from_functions():
    # The double-backward graph is made of differentiable functions, so a
    # third derivative exists; compare it with a finite difference of the second.
    def second(x_value):
        x = catena.Variable(np.array([[x_value, 0.3, -0.2, 0.4]]))
        c, h = F.lstm(np.array([[0.5]]), x)
        gx, = catena.grad([h], [x], enable_double_backprop=True)
        ggx, = catena.grad([gx[0, 0]], [x], enable_double_backprop=True)
        return x, ggx

    x, ggx = second(0.1)
    gggx, = catena.grad([ggx[0, 0]], [x])
    eps = 1e-4
    numeric = (second(0.1 + eps)[1].array[0, 0] - second(0.1 - eps)[1].array[0, 0]) / (2 * eps)
    testing.assert_allclose(gggx.array[0, 0], numeric, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize(('c_shape', 'x_shape', 'dtypes', 'named'), [
    ((3, 2), (3, 7), ('f', 'f'), 'x.shape[1]'),          # not 4 * n_units
    ((3, 2), (3, 12), ('f', 'f'), 'x.shape[1]'),
    ((2, 2), (3, 8), ('f', 'f'), 'x.shape[0]'),          # batch larger than c_prev's
    ((3, 2, 4), (3, 8, 5), ('f', 'f'), 'x.shape[2]'),    # trailing axes differ
    ((3, 2), (3, 8), ('f', 'd'), 'x.dtype'),
    ((3, 2), (3, 8), ('i', 'i'), 'c_prev.dtype'),
])
def test_invalid_arguments(c_shape, x_shape, dtypes, named):
    c = np.zeros(c_shape, dtype=dtypes[0])
    x = np.zeros(x_shape, dtype=dtypes[1])
    with pytest.raises(InvalidType) as info:
        F.lstm(c, x)
    assert named in str(info.value)
    assert 'LSTM' in str(info.value)
