"""sigmoid_cross_entropy: binary labels, ignored labels, normalize, reduce."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _expected(x, t, normalize, reduce):
    """The loss from the definition, in float64: -t log p - (1 - t) log(1 - p)."""
    x64 = x.astype(np.float64)
    p = 1 / (1 + np.exp(-x64))
    loss = -(t * np.log(p) + (1 - t) * np.log1p(-p))
    loss[t == -1] = 0
    if reduce == 'no':
        return loss.astype(x.dtype)
    count = np.count_nonzero(t != -1) if normalize else x.shape[0]
    return np.asarray(loss.sum() / max(count, 1), dtype=x.dtype)


@testing.parameterize(*testing.product({
    'shape': [(4, 3), (5,)],
    'normalize': [True, False],
    'reduce': ['mean', 'no'],
    'ignore': [False, True],
    'dtype': [np.float32],
}) + testing.product({
    'shape': [(4, 3)],
    'normalize': [True],
    'reduce': ['mean', 'no'],
    'ignore': [True],
    'dtype': [np.float16, np.float64],
}))
class TestSigmoidCrossEntropy(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        x = np.random.uniform(-3, 3, self.shape).astype(self.dtype)
        t = np.random.randint(0, 2, self.shape).astype(np.int32)
        if self.ignore:
            t.flat[::3] = -1
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return F.sigmoid_cross_entropy(x, t, normalize=self.normalize, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = inputs
        return _expected(x, t, self.normalize, self.reduce),


def test_ignored_elements_contribute_nothing():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 3)))
    t = np.array([[0, -1, 1], [-1, -1, 0]], np.int32)
    per_element = F.sigmoid_cross_entropy(x, t, reduce='no').array
    np.testing.assert_array_equal(per_element[t == -1], 0)
    assert np.all(per_element[t != -1] > 0)
    loss = F.sigmoid_cross_entropy(x, t)
    assert float(loss.array) == pytest.approx(per_element.sum() / 3)
    loss.backward()
    np.testing.assert_array_equal(x.grad[t == -1], 0)


def test_extreme_scores_are_finite():
    x = np.array([-1000.0, 1000.0, -1000.0, 1000.0], np.float32)
    t = np.array([0, 1, 1, 0], np.int32)
    np.testing.assert_allclose(F.sigmoid_cross_entropy(x, t, reduce='no').array,
                               [0, 0, 1000, 1000])


def test_labels_out_of_range_are_rejected():
    with pytest.raises(ValueError, match=r'got 2 \(t\.shape=\(2,\), x\.shape=\(2,\)\)'):
        F.sigmoid_cross_entropy(np.zeros(2, np.float32), np.array([0, 2], np.int32))


def test_labels_of_the_wrong_shape_or_dtype_are_rejected():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3\).*t\.shape=\(3, 2\)'):
        F.sigmoid_cross_entropy(x, np.zeros((3, 2), np.int32))
    with pytest.raises(InvalidType, match=r'x\.dtype=float32.*t\.dtype=float32'):
        F.sigmoid_cross_entropy(x, np.zeros((2, 3), np.float32))


def test_bad_reduce_is_rejected():
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'"):
        F.sigmoid_cross_entropy(np.zeros(2, np.float32), np.zeros(2, np.int32), reduce='sum')
