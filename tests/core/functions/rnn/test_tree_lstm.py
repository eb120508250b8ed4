"""tree_lstm: gates in contiguous blocks (a, i, o, f_1..f_n), gradients, argument errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import gradient_check, testing
from catena.functions.rnn.tree_lstm import TreeLSTMGrad
from catena.utils.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _reference(*inputs):
    """c = tanh(a) s(i) + sum_k s(f_k) c_k, h = s(o) tanh(c); gate g is x[:, g*n:(g+1)*n]."""
    cs, x = [c.astype(np.float64) for c in inputs[:-1]], inputs[-1].astype(np.float64)
    n = cs[0].shape[1]
    block = [x[:, g * n:(g + 1) * n] for g in range(3 + len(cs))]
    a, i, o, fs = block[0], block[1], block[2], block[3:]
    c = np.tanh(a) * _sigmoid(i)
    for f, ck in zip(fs, cs):
        c = c + _sigmoid(f) * ck
    h = _sigmoid(o) * np.tanh(c)
    dtype = inputs[-1].dtype
    return c.astype(dtype), h.astype(dtype)


@testing.parameterize(*(testing.product({
    'n_ary': [1, 3],
    'shape': [(3, 2), (2, 2, 3)],
    'dtype': [np.float16, np.float32, np.float64],
}) + testing.product({
    'n_ary': [2],
    'shape': [(0, 3), (2, 0)],
    'dtype': [np.float32],
})))
class TestTreeLSTM(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        x_shape = (self.shape[0], (3 + self.n_ary) * self.shape[1]) + self.shape[2:]
        cs = [np.random.uniform(-1, 1, self.shape).astype(self.dtype)
              for _ in range(self.n_ary)]
        return tuple(cs) + (np.random.uniform(-1, 1, x_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return F.tree_lstm(*inputs)

    def forward_expected(self, inputs):
        return _reference(*inputs)


def test_tree_lstm_grad_node_recomputes_without_cache():
    rng = np.random.RandomState(3)

    def u(*shape):
        return rng.uniform(-1, 1, shape)

    inputs = (u(3, 2), u(3, 2), u(3, 10))
    gc, gh = u(3, 2), u(3, 2)
    direct = TreeLSTMGrad().apply(inputs + (gc, gh))
    variables = [catena.Variable(a) for a in inputs]
    catena.backward(list(F.tree_lstm(*variables)), [gc, gh])
    for got, v in zip(direct, variables):
        testing.assert_allclose(got.array, v.grad, atol=1e-12, rtol=1e-10)
    gradient_check.check_backward(lambda *args: TreeLSTMGrad().apply(args), inputs + (gc, gh),
                                  (u(3, 2), u(3, 2), u(3, 10)), atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize(('shapes', 'named'), [
    (((3, 2), (3, 7)), 'x.shape[1]'),               # 1 child: needs 4 * 2 = 8
    (((3, 2), (3, 2), (3, 8)), 'x.shape[1]'),       # 2 children: needs 10
    (((3, 2), (3, 3), (3, 10)), 'c2.shape[1]'),
    (((3, 2), (2, 8)), 'c1.shape[0]'),
    (((3, 2, 2), (3, 8, 3)), 'x.shape[2]'),
])
def test_invalid_shapes(shapes, named):
    arrays = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(InvalidType) as info:
        F.tree_lstm(*arrays)
    assert named in str(info.value)


def test_needs_a_child_and_x():
    with pytest.raises(InvalidType):
        F.tree_lstm(np.zeros((3, 8), np.float32))
