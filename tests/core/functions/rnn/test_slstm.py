"""slstm: two children's gates interleaved per unit, gradients of any order, argument errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import gradient_check, testing
from catena.functions.rnn.slstm import SLSTMGrad
from catena.utils.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _reference(c1, c2, x1, x2):
    """Per unit: c = tanh(a1) s(i1) + tanh(a2) s(i2) + s(f1) c1 + s(f2) c2,
    h = s(o1 + o2) tanh(c), where s is the sigmoid."""
    batch, n_units = c1.shape[:2]
    c = np.empty(c1.shape)
    for b in range(batch):
        for u in range(n_units):
            a1, i1, f1, o1 = (x1[b, 4 * u + k].astype(np.float64) for k in range(4))
            a2, i2, f2, o2 = (x2[b, 4 * u + k].astype(np.float64) for k in range(4))
            c[b, u] = (np.tanh(a1) * _sigmoid(i1) + np.tanh(a2) * _sigmoid(i2)
                       + _sigmoid(f1) * c1[b, u] + _sigmoid(f2) * c2[b, u])
    o = np.empty(c1.shape)
    for u in range(n_units):
        o[:, u] = _sigmoid(x1[:, 4 * u + 3].astype(np.float64) + x2[:, 4 * u + 3])
    return c.astype(c1.dtype), (o * np.tanh(c)).astype(c1.dtype)


@testing.parameterize(*(testing.product({
    'shape': [(3, 2), (2, 3, 2), (1, 0, 3)],
    'dtype': [np.float16, np.float32, np.float64],
    'grads': [(True, True)],
}) + testing.product({
    'shape': [(3, 2)],
    'dtype': [np.float64],
    'grads': [(True, False), (False, True)],
})))
class TestSLSTM(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        x_shape = (self.shape[0], 4 * self.shape[1]) + self.shape[2:]
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype)
                     for s in (self.shape, self.shape, x_shape, x_shape))

    def generate_grad_outputs(self, outputs_template):
        return tuple(np.random.uniform(-1, 1, t.shape).astype(t.dtype) if wanted else None
                     for t, wanted in zip(outputs_template, self.grads))

    def forward(self, inputs, device):
        return F.slstm(*inputs)

    def forward_expected(self, inputs):
        return _reference(*inputs)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_slstm_grad_node_recomputes_without_cache(dtype):
    rng = np.random.RandomState(2)

    def u(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)

    inputs = (u(3, 2, 4), u(3, 2, 4), u(3, 8, 4), u(3, 8, 4))
    gc, gh = u(3, 2, 4), u(3, 2, 4)
    direct = SLSTMGrad().apply(inputs + (gc, gh))
    variables = [catena.Variable(a) for a in inputs]
    catena.backward(list(F.slstm(*variables)), [gc, gh])
    for got, v in zip(direct, variables):
        testing.assert_allclose(got.array, v.grad, atol=1e-6, rtol=1e-5)

    tol = {'atol': 1e-4, 'rtol': 1e-3} if dtype == np.float64 else {'atol': 1e-3, 'rtol': 1e-2}
    gradient_check.check_backward(lambda *args: SLSTMGrad().apply(args), inputs + (gc, gh),
                                  (u(3, 2, 4), u(3, 2, 4), u(3, 8, 4), u(3, 8, 4)),
                                  dtype=np.float64, **tol)


@pytest.mark.parametrize(('shapes', 'named'), [
    (((3, 2), (3, 2), (3, 6), (3, 6)), 'x1.shape[1]'),
    (((3, 2), (3, 3), (3, 8), (3, 8)), 'c_prev2.shape[1]'),
    (((3, 2), (3, 2), (3, 8), (2, 8)), 'x2.shape[0]'),
    (((3, 2), (3, 2), (2, 8), (2, 8)), 'x1.shape[0]'),
    (((3, 2, 2), (3, 2, 2), (3, 8, 3), (3, 8, 3)), 'x1.shape[2]'),
])
def test_invalid_shapes(shapes, named):
    arrays = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(InvalidType) as info:
        F.slstm(*arrays)
    assert named in str(info.value)


def test_invalid_dtype():
    arrays = [np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32),
              np.zeros((3, 8), np.float32), np.zeros((3, 8), np.float64)]
    with pytest.raises(InvalidType, match='x2.dtype'):
        F.slstm(*arrays)
