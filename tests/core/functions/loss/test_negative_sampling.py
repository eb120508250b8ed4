"""negative_sampling: forward against the formula with a fixed sampler, gradients, errors."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

N, D, V, K = 4, 3, 5, 2


def _log_sigmoid(a):
    return -math.log1p(math.exp(-a))


class _FixedSampler:
    """A deterministic sampler: always the same array (the loss is then a formula)."""

    def __init__(self, samples):
        self.samples = samples
        self.shapes = []

    def __call__(self, shape):
        self.shapes.append(shape)
        return self.samples.copy()


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'reduce': ['sum', 'no'],
}))
class TestNegativeSampling(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (N, D)).astype(self.dtype)
        t = np.random.randint(0, V, N).astype(np.int32)
        t[1] = -1  # ignored
        W = np.random.uniform(-1, 1, (V, D)).astype(self.dtype)
        self.sampler = _FixedSampler(np.random.randint(0, V, (N, K + 1)).astype(np.int32))
        return x, t, W

    def forward(self, inputs, device):
        x, t, W = inputs
        return F.negative_sampling(x, t, W, self.sampler, K, self.reduce),

    def forward_expected(self, inputs):
        x, t, W = (a.astype(np.float64) if a.dtype.kind == 'f' else a for a in inputs)
        samples = self.sampler.samples
        loss = np.zeros(N)
        for n in range(N):
            if t[n] == -1:
                continue
            loss[n] = -_log_sigmoid(W[t[n]] @ x[n])
            for k in range(1, K + 1):
                loss[n] -= _log_sigmoid(-W[samples[n, k]] @ x[n])
        if self.reduce == 'sum':
            loss = loss.sum()
        return np.asarray(loss, dtype=self.dtype),


def test_samples_are_returned_with_the_labels_first():
    drawn = np.array([[4, 1, 2], [3, 3, 0]], np.int32)
    sampler = _FixedSampler(drawn)
    x = catena.Variable(np.ones((2, 3), np.float32))
    W = np.ones((5, 3), np.float32)
    t = np.array([2, -1], np.int32)
    loss, samples = F.negative_sampling(x, t, W, sampler, 2, return_samples=True)
    assert sampler.shapes == [(2, 3)]
    np.testing.assert_array_equal(samples, [[2, 1, 2], [-1, 3, 0]])
    np.testing.assert_array_equal(drawn, [[4, 1, 2], [3, 3, 0]])  # the sampler's own array
    assert type(loss.creator).__name__ == 'NegativeSamplingFunction'


def test_ignored_rows_get_no_gradient():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 3)))
    W = catena.Variable(np.random.uniform(-1, 1, (4, 3)))
    t = np.array([-1, 1], np.int32)
    sampler = _FixedSampler(np.array([[0, 2], [0, 3]], np.int32))
    F.negative_sampling(x, t, W, sampler, 1).backward()
    np.testing.assert_array_equal(x.grad[0], 0)
    np.testing.assert_array_equal(W.grad[2], 0)  # sampled for the ignored row only
    assert np.abs(W.grad[[0, 1, 3]]).sum() > 0


def _args():
    x = np.zeros((3, 2), np.float32)
    t = np.zeros(3, np.int32)
    W = np.zeros((4, 2), np.float32)
    return x, t, W, _FixedSampler(np.zeros((3, 2), np.int32))


def test_t_shaped_unlike_x():
    x, t, W, sampler = _args()
    with pytest.raises(InvalidType, match=r'x.shape=\(3, 2\).*t.shape=\(3, 1\)'):
        F.negative_sampling(x, t[:, None], W, sampler, 1)


def test_wrong_label_dtype():
    x, t, W, sampler = _args()
    with pytest.raises(InvalidType, match='x.dtype=float32.*t.dtype=float32'):
        F.negative_sampling(x, t.astype(np.float32), W, sampler, 1)
    with pytest.raises(InvalidType, match='x.dtype=float32.*W.dtype=float64'):
        F.negative_sampling(x, t, W.astype(np.float64), sampler, 1)


def test_labels_and_samples_out_of_range():
    x, t, W, sampler = _args()
    t[0] = 4
    with pytest.raises(ValueError, match=r't must lie in \[0, 4\) or -1.*got 4'):
        F.negative_sampling(x, t, W, sampler, 1)
    t[0] = -2
    with pytest.raises(ValueError, match='got -2'):
        F.negative_sampling(x, t, W, sampler, 1)
    t[0] = 0
    sampler.samples[1, 1] = 7
    with pytest.raises(ValueError, match=r'samples must lie in \[0, 4\).*got 7'):
        F.negative_sampling(x, t, W, sampler, 1)


def test_bad_sampler_and_options():
    x, t, W, sampler = _args()
    with pytest.raises(ValueError, match=r'shape \(3, 3\).*got \(3, 2\)'):
        F.negative_sampling(x, t, W, sampler, 2)
    with pytest.raises(ValueError, match='integer array'):
        F.negative_sampling(x, t, W, lambda shape: np.zeros(shape), 1)
    with pytest.raises(ValueError, match="reduce.*'mean'"):
        F.negative_sampling(x, t, W, sampler, 1, reduce='mean')
    with pytest.raises(ValueError, match='sample_size'):
        F.negative_sampling(x, t, W, sampler, -1)
