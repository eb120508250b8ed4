"""triplet: active and inactive rows, both reductions, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expected(a, p, n, margin, reduce):
    a, p, n = (v.astype(np.float64) for v in (a, p, n))
    loss = np.maximum(((a - p) ** 2).sum(axis=1) - ((a - n) ** 2).sum(axis=1) + margin, 0)
    if reduce == 'mean':
        return np.asarray(loss.mean())
    return loss


@testing.parameterize(*testing.product({
    'margin': [0.1, 0.5],
    'reduce': ['mean', 'no'],
    'dtype': [np.float32],
}) + testing.product({
    'margin': [0.1],
    'reduce': ['mean', 'no'],
    'dtype': [np.float16, np.float64],
}))
class TestTriplet(testing.FunctionTestCase):

    dodge_nondifferentiable = True  # the hinge at 0

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (5, 3)).astype(self.dtype) for _ in range(3))

    def forward(self, inputs, device):
        a, p, n = inputs
        return F.triplet(a, p, n, margin=self.margin, reduce=self.reduce),

    def forward_expected(self, inputs):
        return _expected(*inputs, self.margin, self.reduce).astype(self.dtype),


def test_rows_below_the_margin_cost_nothing():
    a = np.zeros((2, 1), np.float32)
    p = np.array([[0.1], [1.0]], np.float32)
    n = np.array([[1.0], [0.1]], np.float32)
    np.testing.assert_allclose(F.triplet(a, p, n, reduce='no').array, [0.0, 1.19], rtol=1e-6)


def test_bad_shapes_and_dtypes_are_rejected():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'anchor\.shape=\(2, 3\).*negative\.shape=\(2, 4\)'):
        F.triplet(x, x, np.zeros((2, 4), np.float32))
    with pytest.raises(InvalidType, match=r'anchor\.dtype=float32.*positive\.dtype=float64'):
        F.triplet(x, np.zeros((2, 3)), x)
    with pytest.raises(InvalidType, match=r'anchor\.ndim == 2'):
        F.triplet(x[0], x[0], x[0])


def test_bad_options_are_rejected():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='margin must be positive'):
        F.triplet(x, x, x, margin=-1)
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        F.triplet(x, x, x, reduce='no_')
