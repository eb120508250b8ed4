"""The CRF1d link: loss and Viterbi path against brute-force enumeration."""

# ruff: noqa: NPY002

import itertools

import numpy as np

import catena.links as L
from catena import testing

_K = 3
_LENGTHS = (2, 3, 1)
_YS = [np.random.RandomState(n).randint(0, _K, n).astype(np.int32) for n in _LENGTHS]


def _score(cost, x, y):
    return x[np.arange(len(y)), y].sum() + sum(cost[a, b] for a, b in zip(y[:-1], y[1:]))


def _nll(cost, x, y):
    scores = [_score(cost, x, np.array(path)) for path in
              itertools.product(range(_K), repeat=len(y))]
    return np.logaddexp.reduce(scores) - _score(cost, x, y)


def _best(cost, x):
    paths = list(itertools.product(range(_K), repeat=len(x)))
    scores = [_score(cost, x, np.array(p)) for p in paths]
    return max(scores), np.array(paths[int(np.argmax(scores))])


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestCRF1dBatchMajor(testing.LinkTestCase):

    def generate_params(self):
        return np.random.uniform(-1, 1, (_K, _K)).astype(self.dtype),

    def create_link(self, initializers):
        return L.CRF1d(_K, initial_cost=initializers[0])

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (n, _K)).astype(self.dtype) for n in _LENGTHS)

    def forward(self, link, inputs, device):
        ys = [device.send(y) for y in _YS]
        return link(list(inputs), ys, transpose=True),

    def forward_expected(self, link, inputs):
        cost = link.cost.array.astype(np.float64)
        losses = [_nll(cost, x.astype(np.float64), y) for x, y in zip(inputs, _YS)]
        return np.asarray(np.mean(losses), dtype=self.dtype),


def test_time_major_reduce_no_and_default():
    link = L.CRF1d(_K)
    np.testing.assert_array_equal(link.cost.array, np.zeros((_K, _K)))
    link.cost.array[...] = np.random.uniform(-1, 1, (_K, _K))
    seqs = [np.random.uniform(-1, 1, (n, _K)).astype(np.float32) for n in (3, 2)]
    ys = [np.array([0, 2, 1], np.int32), np.array([1, 1], np.int32)]
    xs_time = [np.stack([s[i] for s in seqs if len(s) > i]) for i in range(3)]
    ys_time = [np.array([y[i] for y in ys if len(y) > i], np.int32) for i in range(3)]
    loss = link(xs_time, ys_time, reduce='no')
    expected = [_nll(link.cost.array.astype(np.float64), s.astype(np.float64), y)
                for s, y in zip(seqs, ys)]
    np.testing.assert_allclose(loss.array, expected, rtol=1e-5)
    transposing = L.CRF1d(_K, initial_cost=link.cost.array.copy(), transpose=True)
    np.testing.assert_allclose(transposing(seqs, ys).array, np.mean(expected), rtol=1e-5)


def test_argmax_batch_major_restores_order():
    link = L.CRF1d(_K, initial_cost=np.random.uniform(-1, 1, (_K, _K)).astype(np.float32))
    seqs = [np.random.uniform(-1, 1, (n, _K)).astype(np.float32) for n in (1, 3, 2)]
    score, path = link.argmax(seqs, transpose=True)
    cost = link.cost.array.astype(np.float64)
    for x, p in zip(seqs, path):
        np.testing.assert_array_equal(p, _best(cost, x.astype(np.float64))[1])
    # Scores come longest-first: lengths 3, 2, 1.
    expected = [_best(cost, seqs[i].astype(np.float64))[0] for i in (1, 2, 0)]
    np.testing.assert_allclose(score.array, expected, rtol=1e-5)
    time_score, time_path = link.argmax([np.stack([seqs[1][0], seqs[2][0], seqs[0][0]])])
    assert len(time_path) == 1 and time_path[0].shape == (3,)
