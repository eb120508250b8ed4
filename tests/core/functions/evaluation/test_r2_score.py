"""r2_score: values against the formula, weights, multioutput, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _r2(pred, true, weight=None):
    pred = pred.astype(np.float64)
    true = true.astype(np.float64)
    w = np.ones(len(true)) if weight is None else weight.astype(np.float64)
    w = w.reshape((-1,) + (1,) * (true.ndim - 1))
    mean = (w * true).sum(axis=0) / w.sum()
    res = (w * (pred - true) ** 2).sum(axis=0)
    tot = (w * (true - mean) ** 2).sum(axis=0)
    return np.where(tot == 0, 0.0, 1 - res / np.where(tot == 0, 1.0, tot))


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(20,), (20, 3), (10, 2, 3)],
    'multioutput': ['uniform_average', 'raw_values'],
    'weighted': [False, True],
}))
class TestR2Score(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        true = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        pred = (true + np.random.uniform(-0.3, 0.3, self.shape)).astype(self.dtype)
        if not self.weighted:
            return pred, true
        return pred, true, np.random.uniform(0.5, 2, self.shape[:1]).astype(self.dtype)

    def forward(self, inputs, device):
        if self.weighted:
            pred, true, weight = inputs
            return F.r2_score(pred, true, sample_weight=weight, multioutput=self.multioutput),
        pred, true = inputs
        return F.r2_score(pred, true, multioutput=self.multioutput),

    def forward_expected(self, inputs):
        score = _r2(*inputs)
        if self.multioutput == 'uniform_average':
            score = score.mean()
        return np.asarray(score, dtype=self.dtype),


def test_known_values():
    true = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 2.0], [4.0, 2.0]], np.float32)
    pred = np.array([[1.0, 1.0], [2.0, 3.0], [3.0, 2.0], [5.0, 2.0]], np.float32)
    raw = F.r2_score(pred, true, multioutput='raw_values')
    # Output 0: 1 - 1 / 5; output 1: a constant target scores 0.
    np.testing.assert_allclose(raw.array, [0.8, 0.0], rtol=1e-6)
    np.testing.assert_allclose(F.r2_score(pred, true).array, 0.4, rtol=1e-6)
    np.testing.assert_allclose(F.r2_score(true[:, 0], true[:, 0]).array, 1.0)
    worse = F.r2_score(np.full(4, 10.0, np.float32), true[:, 0])
    assert worse.array < 0
    result = F.r2_score(catena.Variable(pred), true)
    assert not result.requires_grad and result.creator is None and result.shape == ()


def test_weights_change_the_score():
    true = np.array([1.0, 2.0, 3.0, 4.0])
    pred = np.array([1.0, 2.0, 3.0, 6.0])
    plain = F.r2_score(pred, true).array
    light = F.r2_score(pred, true, sample_weight=np.array([1.0, 1.0, 1.0, 0.1])).array
    assert light > plain
    np.testing.assert_allclose(
        F.r2_score(pred, true, sample_weight=np.full(4, 3.0)).array, plain)


def test_errors():
    x = np.zeros((4, 2), np.float32)
    with pytest.raises(ValueError, match='multioutput.*variance_weighted'):
        F.r2_score(x, x, multioutput='variance_weighted')
    with pytest.raises(InvalidType, match=r'pred\.shape == true\.shape'):
        F.r2_score(x, np.zeros((4, 3), np.float32))
    with pytest.raises(InvalidType, match=r'true\.dtype\.kind'):
        F.r2_score(x, np.zeros((4, 2), np.int32))
    with pytest.raises(InvalidType, match=r'sample_weight\.shape\[0\] == pred\.shape\[0\]'):
        F.r2_score(x, x, sample_weight=np.ones(3, np.float32))
    with pytest.raises(InvalidType, match=r'sample_weight\.ndim'):
        F.r2_score(x, x, sample_weight=np.ones((4, 2), np.float32))
