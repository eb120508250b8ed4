"""connectionist_temporal_classification: checked against enumerating every alignment."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

T, B, V, M = 4, 3, 3, 2


def _log_softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def _collapse(path, blank):
    """Merges repeated symbols, then drops blanks."""
    return tuple(k for k, _ in itertools.groupby(path) if k != blank)


def _brute_force_ctc(x, t, blank, input_length, label_length):
    """-log of the summed probability of every alignment that collapses to the labels."""
    x = x.astype(np.float64)
    loss = np.empty(x.shape[1])
    for b in range(x.shape[1]):
        log_y = _log_softmax(x[:input_length[b], b])
        labels = tuple(int(k) for k in t[b, :label_length[b]])
        log_ps = [sum(log_y[i, k] for i, k in enumerate(path))
                  for path in itertools.product(range(x.shape[2]), repeat=input_length[b])
                  if _collapse(path, blank) == labels]
        if not log_ps:
            loss[b] = np.inf
            continue
        top = max(log_ps)
        loss[b] = -(top + np.log(sum(np.exp(p - top) for p in log_ps)))
    return loss


def _labels(blank, label_length, pad):
    """Random non-blank labels, one sequence with a repeated label, padding beyond the length."""
    symbols = [k for k in range(V) if k != blank]
    t = np.random.choice(symbols, (B, M)).astype(np.int32)
    t[0, 1] = t[0, 0]  # a repeat: the alignment needs a blank between them
    for b in range(B):
        t[b, label_length[b]:] = pad
    return t


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'reduce': ['mean', 'no'],
    'lengths': ['full', 'variable'],
    'blank': [0, V - 1],
}))
class TestCTC(testing.FunctionTestCase):

    skip_double_backward_test = True  # differentiable once, as in Chainer

    def setUp(self):
        if self.lengths == 'full':
            self.input_length = np.full(B, T, np.int32)
            self.label_length = np.full(B, M, np.int32)
        else:
            self.input_length = np.array([4, 3, 2], np.int32)
            self.label_length = np.array([2, 1, 0], np.int32)
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 2e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (T, B, V)).astype(self.dtype)
        # padding is ignored, even when it is not a valid label
        t = _labels(self.blank, self.label_length, pad=-1 if self.lengths == 'variable' else 0)
        return x, t, self.input_length.copy(), self.label_length.copy()

    def forward(self, inputs, device):
        x, t, input_length, label_length = inputs
        xs = [x[i] for i in range(T)]
        if self.lengths == 'full':
            input_length = label_length = None
        return F.connectionist_temporal_classification(
            xs, t, self.blank, input_length, label_length, self.reduce),

    def forward_expected(self, inputs):
        x, t, input_length, label_length = inputs
        loss = _brute_force_ctc(x, t, self.blank, input_length, label_length)
        if self.reduce == 'mean':
            loss = loss.mean()
        return np.asarray(loss, dtype=self.dtype),


@pytest.mark.parametrize('seed', range(3))
def test_longer_inputs_and_more_labels(seed):
    rng = np.random.RandomState(seed)
    n_time, batch, n_vocab = 5, 2, 4
    x = rng.normal(0, 2, (n_time, batch, n_vocab))
    t = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    input_length = np.array([5, 4], np.int32)
    label_length = np.array([3, 2], np.int32)
    loss = F.connectionist_temporal_classification(list(x), t, 0, input_length, label_length,
                                                   reduce='no')
    np.testing.assert_allclose(
        loss.array, _brute_force_ctc(x, t, 0, input_length, label_length), rtol=1e-12)


def test_large_scores_stay_finite():
    x = np.random.uniform(-1, 1, (T, 2, V)).astype(np.float32) * 200
    t = np.array([[1, 2], [2, 2]], np.int32)
    xs = [catena.Variable(x_i) for x_i in x]
    loss = F.connectionist_temporal_classification(xs, t, 0, reduce='no')
    np.testing.assert_allclose(loss.array, _brute_force_ctc(x, t, 0, [T, T], [2, 2]),
                               rtol=1e-5)
    F.sum(loss).backward()
    assert all(np.isfinite(x_i.grad).all() for x_i in xs)


def test_gradient_is_softmax_minus_posterior():
    # Each frame's gradient sums to zero over the labels; frames past the
    # input length get none.
    xs = [catena.Variable(np.random.uniform(-1, 1, (2, V))) for _ in range(T)]
    t = np.array([[1, 2], [1, 0]], np.int32)
    loss = F.connectionist_temporal_classification(
        xs, t, 0, np.array([4, 2], np.int32), np.array([2, 1], np.int32), reduce='no')
    loss.grad = np.ones(2)
    loss.backward()
    for i, x in enumerate(xs):
        np.testing.assert_allclose(x.grad.sum(axis=1), 0.0, atol=1e-12)
        if i >= 2:
            np.testing.assert_array_equal(x.grad[1], 0.0)


def test_impossible_alignment_has_infinite_loss_and_no_gradient():
    xs = [catena.Variable(np.zeros((2, V))) for _ in range(2)]
    t = np.array([[1, 1], [1, 2]], np.int32)  # 1 1 needs three frames; 1 2 fits in two
    loss = F.connectionist_temporal_classification(xs, t, 0, reduce='no')
    assert np.isinf(loss.array[0]) and np.isfinite(loss.array[1])
    loss.grad = np.ones(2)
    loss.backward()
    assert all((x.grad[0] == 0).all() and np.isfinite(x.grad).all() for x in xs)


def test_double_backward_is_refused():
    xs = [catena.Variable(np.random.uniform(-1, 1, (1, V))) for _ in range(2)]
    loss = F.connectionist_temporal_classification(xs, np.array([[1]], np.int32), 0)
    assert type(loss.creator).__name__ == 'ConnectionistTemporalClassification'
    gx, = catena.grad([loss], [xs[0]], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='differentiable only once'):
        catena.grad([F.sum(gx * gx)], [xs[0]])


def _args():
    xs = [np.zeros((2, V), np.float32) for _ in range(T)]
    return xs, np.ones((2, M), np.int32)


def test_t_shaped_unlike_x():
    xs, t = _args()
    with pytest.raises(InvalidType, match=r'x\[0\].shape=\(2, 3\).*t.shape=\(3, 2\)'):
        F.connectionist_temporal_classification(xs, np.ones((3, M), np.int32), 0)


def test_wrong_label_dtype():
    xs, t = _args()
    with pytest.raises(InvalidType, match=r'x\[0\].dtype=float32.*t.dtype=float32'):
        F.connectionist_temporal_classification(xs, t.astype(np.float32), 0)
    with pytest.raises(InvalidType, match=r'x.shape=\(4, 2, 3\).*input_length.dtype=float32'):
        F.connectionist_temporal_classification(xs, t, 0, np.full(2, T, np.float32))


def test_labels_and_lengths_out_of_range():
    xs, t = _args()
    t[1, 0] = V
    with pytest.raises(ValueError, match=r't \(within label_length\) must lie in \[0, 3\).*got 3'):
        F.connectionist_temporal_classification(xs, t, 0)
    t[1, 0] = 1
    with pytest.raises(ValueError, match=r'input_length must lie in \[1, 4\].*5'):
        F.connectionist_temporal_classification(xs, t, 0, np.array([5, 4], np.int32))
    with pytest.raises(ValueError, match=r'label_length must lie in \[0, 2\].*3'):
        F.connectionist_temporal_classification(xs, t, 0, None, np.array([3, 1], np.int32))
    with pytest.raises(ValueError, match='blank_symbol must be less than .* V=3'):
        F.connectionist_temporal_classification(xs, t, 3)


def test_bad_arguments():
    xs, t = _args()
    with pytest.raises(TypeError, match='list or tuple'):
        F.connectionist_temporal_classification(np.stack(xs), t, 0)
    with pytest.raises(TypeError, match='blank_symbol'):
        F.connectionist_temporal_classification(xs, t, -1)
    with pytest.raises(InvalidType, match=r'x\[0\].shape=\(2, 3\).*x\[2\].shape=\(1, 3\)'):
        F.connectionist_temporal_classification(xs[:2] + [xs[2][:1]] + xs[3:], t, 0)
    with pytest.raises(ValueError, match="reduce.*'sum'"):
        F.connectionist_temporal_classification(xs, t, 0, reduce='sum')
