"""linear: forward against loops, gradients to second order, batch axes and bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.connection import linear as linear_module
from catena.utils import type_check


def _loop_linear(x, W, b):
    y = np.zeros((x.shape[0], W.shape[0]), dtype=np.float64)
    for n in range(x.shape[0]):
        for o in range(W.shape[0]):
            y[n, o] = sum(float(x[n, i]) * float(W[o, i]) for i in range(W.shape[1]))
            if b is not None:
                y[n, o] += b[o]
    return y


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'x_shape': [(4, 3), (1, 3), (2, 3, 2)],
    'n_batch_axes': [1, 2],
    'nobias': [False, True],
}))
class TestLinear(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 1e-1}

    def _shape(self):
        if self.n_batch_axes == 2 and len(self.x_shape) == 2:
            return self.x_shape + (2,)
        return self.x_shape

    def _in_size(self):
        return int(np.prod(self._shape()[self.n_batch_axes:]))

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self._shape()).astype(self.dtype)
        W = np.random.uniform(-1, 1, (5, self._in_size())).astype(self.dtype)
        if self.nobias:
            return x, W
        return x, W, np.random.uniform(-1, 1, 5).astype(self.dtype)

    def forward(self, inputs, device):
        return F.linear(*inputs, n_batch_axes=self.n_batch_axes),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        batch = x.shape[:self.n_batch_axes]
        y = _loop_linear(x.reshape(-1, W.shape[1]), W, b)
        return y.reshape(batch + (5,)).astype(self.dtype),


def test_linear_nodes_and_shapes():
    x = catena.Variable(np.ones((2, 3, 4), np.float32))
    W = np.ones((6, 12), np.float32)
    y = F.linear(x, W)
    assert y.shape == (2, 6)
    assert isinstance(y.creator, linear_module.LinearFunction)
    y = F.linear(np.ones((2, 3, 4), np.float32), np.ones((6, 4), np.float32), n_batch_axes=2)
    assert y.shape == (2, 3, 6)


def test_linear_gradient_nodes_are_chainer_names():
    x = catena.Variable(np.random.rand(3, 2).astype(np.float32))
    W = catena.Variable(np.random.rand(4, 2).astype(np.float32))
    y = F.linear(x, W)
    gx, gW = catena.grad([y], [x, W], grad_outputs=[np.ones((3, 4), np.float32)],
                         enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'LinearGradData'
    assert type(gW.creator).__name__ == 'LinearGradWeight'


@pytest.mark.parametrize('args, text', [
    ((np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32)), 'x.shape[1] == W.shape[1]'),
    ((np.zeros((2, 3), np.float32), np.zeros((4, 3), np.int32)), 'W.dtype.kind'),
    ((np.zeros((2, 3), np.float32), np.zeros((4, 3), np.float32), np.zeros(4, np.float64)),
     'b.dtype == x.dtype'),
    ((np.zeros((2, 3), np.int32), np.zeros((4, 3), np.int32)), 'x.dtype.kind'),
    ((np.zeros((2, 3), np.float32), np.zeros((4, 3), np.float32), np.zeros(3, np.float32)),
     'b.shape[0] == W.shape[0]'),
    ((np.zeros((2, 3), np.float32), np.zeros((4, 3, 1), np.float32)), 'W.ndim == 2'),
])
def test_linear_invalid_types(args, text):
    with pytest.raises(type_check.InvalidType) as info:
        F.linear(*args)
    assert text in str(info.value)


@pytest.mark.parametrize('x_dtype, W_dtype', [(np.float32, np.float64),
                                               (np.float16, np.float32)])
def test_linear_weight_of_another_float_dtype(x_dtype, W_dtype):
    rng = np.random.default_rng(0)
    x = catena.Variable(rng.uniform(-1, 1, (2, 3)).astype(x_dtype))
    W = catena.Variable(rng.uniform(-1, 1, (4, 3)).astype(W_dtype))
    y = F.linear(x, W)
    assert y.dtype == x_dtype
    np.testing.assert_allclose(y.array, (x.array.astype(np.float64) @ W.array.T),
                               rtol=1e-2, atol=1e-2)
    y.grad = np.ones((2, 4), x_dtype)
    y.backward()
    assert x.grad.dtype == x_dtype and W.grad.dtype == W_dtype
    np.testing.assert_allclose(W.grad, np.ones((4, 2)) @ x.array, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize('n_batch_axes', [0, -1, 3, 1.5])
def test_linear_invalid_batch_axes(n_batch_axes):
    with pytest.raises(ValueError, match='n_batch_axes'):
        F.linear(np.zeros((2, 3, 4), np.float32), np.zeros((2, 4), np.float32),
                 n_batch_axes=n_batch_axes)
