"""huber_loss: both pieces, both reductions, gradients, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expected(x, t, delta, reduce):
    d = x.astype(np.float64) - t.astype(np.float64)
    loss = np.where(np.abs(d) <= delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    if reduce == 'sum_along_second_axis':
        loss = loss.sum(axis=1)
    return loss.astype(x.dtype)


@testing.parameterize(*testing.product({
    'shape': [(4, 3), (2, 3, 2)],
    'delta': [0.5, 2.0],
    'reduce': ['sum_along_second_axis', 'no'],
    'dtype': [np.float32],
}) + testing.product({
    'shape': [(4, 3)],
    'delta': [0.5],
    'reduce': ['sum_along_second_axis', 'no'],
    'dtype': [np.float16, np.float64],
}))
class TestHuberLoss(testing.FunctionTestCase):

    dodge_nondifferentiable = True  # |x - t| == delta

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return F.huber_loss(x, t, self.delta, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = inputs
        return _expected(x, t, self.delta, self.reduce),


def test_both_pieces_are_exercised():
    x = np.array([[0.1, -0.3, 2.0, -5.0]])
    loss = F.huber_loss(x, np.zeros_like(x), 1.0, reduce='no').array
    np.testing.assert_allclose(loss, [[0.005, 0.045, 1.5, 4.5]])


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3\).*t\.shape=\(2, 4\)'):
        F.huber_loss(np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32), 1.0)


def test_dtype_mismatch_names_both_dtypes():
    with pytest.raises(InvalidType, match=r'x\.dtype=float32.*t\.dtype=float16'):
        F.huber_loss(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float16), 1.0)


def test_one_dimensional_input_cannot_be_summed_along_axis_1():
    with pytest.raises(InvalidType, match=r'x\.ndim >= 2'):
        F.huber_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), 1.0)
    assert F.huber_loss(np.zeros(3, np.float32), np.ones(3, np.float32), 1.0,
                        reduce='no').shape == (3,)


def test_bad_reduce_is_rejected():
    with pytest.raises(ValueError, match="reduce must be 'sum_along_second_axis' or 'no'"):
        F.huber_loss(np.zeros((2, 3)), np.zeros((2, 3)), 1.0, reduce='mean')
