"""black_out: forward against the formula, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

N, D, V, S = 3, 4, 6, 2


def _black_out(x, t, W, samples):
    loss = np.empty(len(x))
    for n in range(len(x)):
        classes = [int(t[n])] + [int(s) for s in samples[n]]
        scores = [float(W[c] @ x[n]) for c in classes]
        z = sum(math.exp(s) for s in scores)
        p = [math.exp(s) / z for s in scores]
        loss[n] = -math.log(p[0]) - sum(math.log(1 - q) for q in p[1:])
    return loss


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'reduce': ['mean', 'no'],
}))
class TestBlackOut(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (N, D)).astype(self.dtype)
        t = np.random.randint(0, V, N).astype(np.int32)
        W = np.random.uniform(-1, 1, (V, D)).astype(self.dtype)
        samples = np.random.randint(0, V, (N, S)).astype(np.int32)
        samples[0, 1] = samples[0, 0]  # a class drawn twice
        return x, t, W, samples

    def forward(self, inputs, device):
        x, t, W, samples = inputs
        return F.black_out(x, t, W, samples, self.reduce),

    def forward_expected(self, inputs):
        x, t, W, samples = inputs
        loss = _black_out(x.astype(np.float64), t, W.astype(np.float64), samples)
        if self.reduce == 'mean':
            loss = loss.mean()
        return np.asarray(loss, dtype=self.dtype),


def test_no_samples_is_the_positive_logit_only():
    x = np.array([[1.0, 2.0]])
    W = np.array([[0.5, 0.5], [1.0, 0.0]])
    loss = F.black_out(x, np.array([1], np.int32), W, np.zeros((1, 0), np.int32), 'no')
    np.testing.assert_allclose(loss.array, [0.0], atol=1e-12)  # p(t) = 1 without negatives


def _args():
    x = np.zeros((3, 4), np.float32)
    t = np.zeros(3, np.int32)
    W = np.zeros((5, 4), np.float32)
    samples = np.zeros((3, 2), np.int32)
    return x, t, W, samples


def test_t_shaped_unlike_x():
    x, t, W, samples = _args()
    with pytest.raises(InvalidType, match=r'x.shape=\(3, 4\).*t.shape=\(2,\)'):
        F.black_out(x, t[:2], W, samples)


def test_wrong_label_dtype():
    x, t, W, samples = _args()
    with pytest.raises(InvalidType, match='x.dtype=float32.*t.dtype=float32'):
        F.black_out(x, t.astype(np.float32), W, samples)
    with pytest.raises(InvalidType, match='samples.dtype=float64'):
        F.black_out(x, t, W, samples.astype(np.float64))


def test_labels_out_of_range():
    x, t, W, samples = _args()
    t[1] = 5
    with pytest.raises(ValueError, match=r't must lie in \[0, 5\).*got 5'):
        F.black_out(x, t, W, samples)
    t[1] = 0
    samples[2, 1] = -1
    with pytest.raises(ValueError, match=r'samples must lie in \[0, 5\).*got -1'):
        F.black_out(x, t, W, samples)


def test_bad_weight_and_reduce():
    x, t, W, samples = _args()
    with pytest.raises(InvalidType, match=r'x.shape=\(3, 4\).*W.shape=\(5, 3\)'):
        F.black_out(x, t, W[:, :3], samples)
    with pytest.raises(ValueError, match="reduce.*'sum'"):
        F.black_out(x, t, W, samples, reduce='sum')
