"""crf1d and argmax_crf1d: checked against enumerating every label sequence."""

# ruff: noqa: NPY002

import itertools
import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

K = 3
LENGTHS = [(3, 3, 3), (3, 2, 2, 1), (1,)]  # per sequence, decreasing


def _batch_sizes(lengths):
    return [sum(1 for n in lengths if n > i) for i in range(lengths[0])]


def _sequence_score(cost, xs, b, labels):
    score = sum(float(xs[i][b, y]) for i, y in enumerate(labels))
    return score + sum(float(cost[a, c]) for a, c in zip(labels, labels[1:]))


def _all_scores(cost, xs, b, length):
    return {labels: _sequence_score(cost, xs, b, labels)
            for labels in itertools.product(range(K), repeat=length)}


def _brute_force_nll(cost, xs, ys, lengths):
    loss = []
    for b, length in enumerate(lengths):
        scores = _all_scores(cost, xs, b, length)
        log_z = math.log(sum(math.exp(s) for s in scores.values()))
        truth = tuple(int(ys[i][b]) for i in range(length))
        loss.append(log_z - scores[truth])
    return np.array(loss)


def _brute_force_argmax(cost, xs, lengths):
    best = []
    for b, length in enumerate(lengths):
        scores = _all_scores(cost, xs, b, length)
        labels = max(scores, key=scores.get)
        best.append((scores[labels], labels))
    return best


def _generate(dtype, lengths):
    cost = np.random.uniform(-1, 1, (K, K)).astype(dtype)
    sizes = _batch_sizes(lengths)
    xs = [np.random.uniform(-1, 1, (n, K)).astype(dtype) for n in sizes]
    ys = [np.random.randint(0, K, n).astype(np.int32) for n in sizes]
    return cost, xs, ys


class _CRFCase(testing.FunctionTestCase):
    __test__ = False

    def setUp(self):
        self.n_steps = self.lengths[0]
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def split(self, inputs):
        cost, rest = inputs[0], list(inputs[1:])
        return cost, rest[:self.n_steps], rest[self.n_steps:]


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'lengths': LENGTHS,
    'reduce': ['mean', 'no'],
}))
class TestCRF1d(_CRFCase):

    def generate_inputs(self):
        cost, xs, ys = _generate(self.dtype, self.lengths)
        return (cost, *xs, *ys)

    def forward(self, inputs, device):
        cost, xs, ys = self.split(inputs)
        return F.crf1d(cost, xs, ys, self.reduce),

    def forward_expected(self, inputs):
        cost, xs, ys = self.split(inputs)
        loss = _brute_force_nll(cost.astype(np.float64), [x.astype(np.float64) for x in xs],
                                ys, self.lengths)
        if self.reduce == 'mean':
            loss = loss.mean()
        return np.asarray(loss, dtype=self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'lengths': LENGTHS,
}))
class TestArgmaxCRF1dScore(_CRFCase):

    def generate_inputs(self):
        cost, xs, _ = _generate(self.dtype, self.lengths)
        return (cost, *xs)

    def forward(self, inputs, device):
        score, path = F.argmax_crf1d(inputs[0], list(inputs[1:]))
        return score,

    def forward_expected(self, inputs):
        cost, xs = inputs[0], list(inputs[1:])
        best = _brute_force_argmax(cost.astype(np.float64),
                                   [x.astype(np.float64) for x in xs], self.lengths)
        return np.array([score for score, _ in best], dtype=self.dtype),


@pytest.mark.parametrize('lengths', LENGTHS + [(4, 4, 2, 2, 2)])
@pytest.mark.parametrize('seed', range(5))
def test_viterbi_path_is_the_brute_force_argmax(lengths, seed):
    np.random.seed(seed)
    cost, xs, _ = _generate(np.float64, lengths)
    score, path = F.argmax_crf1d(cost, xs)
    best = _brute_force_argmax(cost, xs, lengths)
    assert len(path) == len(xs)
    for i, p in enumerate(path):
        assert p.dtype == np.int32 and p.shape == xs[i].shape[:1]
    for b, (best_score, labels) in enumerate(best):
        assert tuple(int(path[i][b]) for i in range(lengths[b])) == labels
        assert score.array[b] == pytest.approx(best_score, abs=1e-12)


def test_a_sure_sequence_has_zero_loss():
    cost = np.zeros((2, 2))
    xs = [np.array([[50.0, -50.0]]), np.array([[-50.0, 50.0]])]
    ys = [np.array([0], np.int32), np.array([1], np.int32)]
    assert float(F.crf1d(cost, xs, ys).array) == pytest.approx(0.0, abs=1e-12)


def test_gradient_is_expected_minus_observed_counts():
    # d loss / d x[i, k] = P(y_i = k) - [truth_i == k]; it sums to zero over k.
    cost = catena.Variable(np.random.uniform(-1, 1, (K, K)))
    xs = [catena.Variable(np.random.uniform(-1, 1, (2, K))) for _ in range(3)]
    ys = [np.array([0, 2], np.int32)] * 3
    F.sum(F.crf1d(cost, xs, ys, reduce='no')).backward()
    for x in xs:
        np.testing.assert_allclose(x.grad.sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(cost.grad.sum(), 0.0, atol=1e-12)


def _args():
    cost = np.zeros((3, 3), np.float32)
    xs = [np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32)]
    ys = [np.zeros(2, np.int32), np.zeros(2, np.int32)]
    return cost, xs, ys


def test_labels_shaped_unlike_scores():
    cost, xs, ys = _args()
    ys[1] = np.zeros(3, np.int32)
    with pytest.raises(InvalidType, match=r'xs\[1\].shape=\(2, 3\).*ys\[1\].shape=\(3,\)'):
        F.crf1d(cost, xs, ys)


def test_wrong_label_dtype():
    cost, xs, ys = _args()
    ys[0] = ys[0].astype(np.float32)
    with pytest.raises(InvalidType, match=r'xs\[0\].dtype=float32.*ys\[0\].dtype=float32'):
        F.crf1d(cost, xs, ys)


def test_labels_out_of_range():
    cost, xs, ys = _args()
    ys[1][0] = 3
    with pytest.raises(ValueError, match=r'ys\[1\] must lie in \[0, 3\).*got 3'):
        F.crf1d(cost, xs, ys)


def test_bad_layouts():
    cost, xs, ys = _args()
    with pytest.raises(InvalidType, match=r'cost.shape=\(3, 2\)'):
        F.crf1d(cost[:, :2], xs, ys)
    with pytest.raises(InvalidType, match=r'cost.shape=\(3, 3\).*xs\[0\].shape=\(2, 2\)'):
        F.argmax_crf1d(cost, [xs[0][:, :2]])
    with pytest.raises(InvalidType, match='decreasing length'):
        F.crf1d(cost, [xs[0][:1], xs[1]], [ys[0][:1], ys[1]])
    with pytest.raises(ValueError, match='len.xs.=2 and len.ys.=1'):
        F.crf1d(cost, xs, ys[:1])
    with pytest.raises(ValueError, match="reduce.*'sum'"):
        F.crf1d(cost, xs, ys, reduce='sum')
