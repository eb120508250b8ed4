"""contrastive: similar and dissimilar pairs, both reductions, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expected(x0, x1, y, margin, reduce):
    d = np.sqrt(((x0.astype(np.float64) - x1) ** 2).sum(axis=1))
    loss = 0.5 * np.where(y == 1, d ** 2, np.maximum(margin - d, 0) ** 2)
    if reduce == 'mean':
        return np.asarray(loss.mean(), dtype=x0.dtype)
    return loss.astype(x0.dtype)


@testing.parameterize(*testing.product({
    'margin': [1.0, 2.0],
    'reduce': ['mean', 'no'],
    'dtype': [np.float32],
}) + testing.product({
    'margin': [1.0],
    'reduce': ['mean', 'no'],
    'dtype': [np.float16, np.float64],
}))
class TestContrastive(testing.FunctionTestCase):

    dodge_nondifferentiable = True  # distance == margin

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        x0 = np.random.uniform(-1, 1, (6, 3)).astype(self.dtype)
        x1 = np.random.uniform(-1, 1, (6, 3)).astype(self.dtype)
        y = np.array([0, 1, 0, 1, 0, 0], np.int32)
        return x0, x1, y

    def forward(self, inputs, device):
        x0, x1, y = inputs
        return F.contrastive(x0, x1, y, margin=self.margin, reduce=self.reduce),

    def forward_expected(self, inputs):
        x0, x1, y = inputs
        return _expected(x0, x1, y, self.margin, self.reduce),


def test_pairs_beyond_the_margin_cost_nothing():
    x0 = np.zeros((2, 2), np.float32)
    x1 = np.array([[3.0, 4.0], [3.0, 4.0]], np.float32)  # distance 5
    loss = F.contrastive(x0, x1, np.array([0, 1], np.int32), margin=2, reduce='no').array
    np.testing.assert_allclose(loss, [0.0, 12.5])


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
def test_gradient_at_zero_distance_is_finite_and_zero(dtype, reduce):
    # the gradient of the distance is undefined at zero; both terms vanish there
    x = np.random.uniform(-1, 1, (4, 3)).astype(dtype)
    x0, x1 = catena.Variable(x), catena.Variable(x.copy())
    loss = F.contrastive(x0, x1, np.array([0, 1, 0, 1], np.int32), margin=2, reduce=reduce)
    F.sum(loss).backward()
    assert x0.grad.dtype == dtype
    np.testing.assert_array_equal(x0.grad, np.zeros_like(x))
    np.testing.assert_array_equal(x1.grad, np.zeros_like(x))


def test_labels_must_be_zero_or_one():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r'got 2 \(t\.shape=\(2,\), x\.shape=\(2, 3\)\)'):
        F.contrastive(x, x, np.array([1, 2], np.int32))


def test_bad_shapes_and_dtypes_are_rejected():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'x0\.shape=\(2, 3\).*x1\.shape=\(2, 4\)'):
        F.contrastive(x, np.zeros((2, 4), np.float32), np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match=r'x0\.shape=\(2, 3\).*y\.shape=\(3,\)'):
        F.contrastive(x, x, np.zeros(3, np.int32))
    with pytest.raises(InvalidType, match=r'x0\.dtype=float32.*y\.dtype=float32'):
        F.contrastive(x, x, np.zeros(2, np.float32))


def test_bad_options_are_rejected():
    x = np.zeros((2, 3), np.float32)
    y = np.zeros(2, np.int32)
    with pytest.raises(ValueError, match='margin must be positive; got 0'):
        F.contrastive(x, x, y, margin=0)
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        F.contrastive(x, x, y, reduce='sum')
