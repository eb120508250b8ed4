"""bilinear: forward against loops, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 4)), ((1, 2, 2), (1, 3))],
    'linear_terms': [False, True],
}))
class TestBilinear(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        e1_shape, e2_shape = self.shapes
        j = int(np.prod(e1_shape[1:]))
        k = int(np.prod(e2_shape[1:]))
        arrays = [np.random.uniform(-1, 1, e1_shape), np.random.uniform(-1, 1, e2_shape),
                  np.random.uniform(-1, 1, (j, k, 3))]
        if self.linear_terms:
            arrays += [np.random.uniform(-1, 1, (j, 3)), np.random.uniform(-1, 1, (k, 3)),
                       np.random.uniform(-1, 1, 3)]
        return tuple(a.astype(self.dtype) for a in arrays)

    def forward(self, inputs, device):
        return F.bilinear(*inputs),

    def forward_expected(self, inputs):
        e1 = inputs[0].reshape(inputs[0].shape[0], -1).astype(np.float64)
        e2 = inputs[1].reshape(inputs[1].shape[0], -1).astype(np.float64)
        W = inputs[2]
        n, (j, k, out) = e1.shape[0], W.shape
        y = np.zeros((n, out))
        for s in range(n):
            for a in range(j):
                for c in range(k):
                    y[s] += e1[s, a] * e2[s, c] * W[a, c]
            if self.linear_terms:
                V1, V2, b = inputs[3:]
                y[s] += e1[s] @ V1 + e2[s] @ V2 + b
        return y.astype(self.dtype),


def test_linear_terms_all_or_none():
    e = np.zeros((2, 3), np.float32)
    W = np.zeros((3, 3, 2), np.float32)
    with pytest.raises(ValueError, match='V1 given, V2 None, b None'):
        F.bilinear(e, e, W, V1=np.zeros((3, 2), np.float32))


@pytest.mark.parametrize('e1_shape, e2_shape, W_shape, text', [
    ((2, 3), (3, 3), (3, 3, 2), 'e1.shape[0] == e2.shape[0]'),
    ((2, 3), (2, 4), (3, 3, 2), 'e2.shape[1] == W.shape[1]'),
    ((2, 3), (2, 3), (3, 3), 'W.ndim == 3'),
    ((3,), (3, 3), (3, 3, 2), 'e1.ndim == 2'),
])
def test_shape_mismatch(e1_shape, e2_shape, W_shape, text):
    with pytest.raises(type_check.InvalidType) as info:
        F.bilinear(np.zeros(e1_shape, np.float32), np.zeros(e2_shape, np.float32),
                   np.zeros(W_shape, np.float32))
    assert text in str(info.value)


def test_bias_shape_mismatch():
    e = np.zeros((2, 3), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'b.shape\[0\] == W.shape\[2\]'):
        F.bilinear(e, e, np.zeros((3, 3, 2), np.float32), np.zeros((3, 2), np.float32),
                   np.zeros((3, 2), np.float32), np.zeros(3, np.float32))
