"""hinge: L1 and L2 norms, both reductions, gradients, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expected(x, t, norm, reduce):
    """One element at a time: max(0, 1 - x) at the label, max(0, 1 + x) elsewhere."""
    x64 = x.astype(np.float64)
    loss = np.zeros_like(x64)
    for n in range(x.shape[0]):
        for k in range(x.shape[1]):
            margin = 1 - x64[n, k] if k == t[n] else 1 + x64[n, k]
            loss[n, k] = max(0.0, margin) ** (1 if norm == 'L1' else 2)
    if reduce == 'mean':
        return np.asarray(loss.sum() / x.shape[0], dtype=x.dtype)
    return loss.astype(x.dtype)


@testing.parameterize(*testing.product({
    'norm': ['L1', 'L2'],
    'reduce': ['mean', 'no'],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestHinge(testing.FunctionTestCase):

    dodge_nondifferentiable = True  # the margin at 0

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, (5, 4)).astype(self.dtype)
        t = np.random.randint(0, 4, 5).astype(np.int32)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return F.hinge(x, t, norm=self.norm, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = inputs
        return _expected(x, t, self.norm, self.reduce),


@pytest.mark.parametrize('label', [4, -1])
def test_labels_out_of_range_are_rejected(label):
    with pytest.raises(ValueError, match=rf'got {label} \(t\.shape=\(2,\), x\.shape=\(2, 4\)\)'):
        F.hinge(np.zeros((2, 4), np.float32), np.array([0, label], np.int32))


def test_labels_of_the_wrong_shape_or_dtype_are_rejected():
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 4\).*t\.shape=\(3,\)'):
        F.hinge(x, np.zeros(3, np.int32))
    with pytest.raises(InvalidType, match=r'x\.dtype=float32.*t\.dtype=float32'):
        F.hinge(x, np.zeros(2, np.float32))
    with pytest.raises(InvalidType, match=r'x\.ndim == 2'):
        F.hinge(np.zeros(4, np.float32), np.zeros(4, np.int32))


def test_bad_options_are_rejected():
    x = np.zeros((2, 4), np.float32)
    t = np.zeros(2, np.int32)
    with pytest.raises(NotImplementedError, match="norm must be 'L1' or 'L2'; got 'L3'"):
        F.hinge(x, t, norm='L3')
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        F.hinge(x, t, reduce='sum')
