"""NStep* links sort sequences by length: states are permuted only when the order changes."""

import numpy as np
import pytest

import catena
import catena.functions as F
from catena.functions.array.permutate import Permutate
from catena.links.rnn.n_step_gru import NStepGRU
from catena.links.rnn.n_step_lstm import NStepLSTM


def _sequences(lengths):
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, (n, 3)).astype(np.float32) for n in lengths]


def _per_sequence(link, hx, xs):
    """Runs each sequence alone: the reference for the batched call."""
    outs = []
    for i, x in enumerate(xs):
        h = None if hx is None else hx[:, i:i + 1]
        outs.append(link(h, [x]))
    return outs


@pytest.mark.parametrize('lengths', [(3, 3, 3), (3, 2, 1), (1, 3, 2)])
@pytest.mark.parametrize('given_state', [False, True])
def test_gru_states_match_each_sequence_alone(lengths, given_state):
    link = NStepGRU(2, 3, 4, 0.0)
    xs = _sequences(lengths)
    hx = (np.random.default_rng(1).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
          if given_state else None)
    hy, ys = link(hx, xs)
    for i, (h_alone, ys_alone) in enumerate(_per_sequence(link, hx, xs)):
        np.testing.assert_allclose(hy.array[:, i:i + 1], h_alone.array, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ys[i].array, ys_alone[0].array, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('lengths, permuted', [((3, 3, 3), False), ((3, 2, 2), False),
                                               ((2, 3, 1), True)])
def test_states_are_permuted_only_when_the_order_changes(lengths, permuted):
    link = NStepLSTM(1, 3, 4, 0.0)
    hx = catena.Variable(np.zeros((1, 3, 4), np.float32))
    hy, cy, _ = link(hx, None, _sequences(lengths))
    for state in (hy, cy):
        assert isinstance(state.creator, Permutate) is permuted
    F.sum(hy + cy).backward()
    assert hx.grad is not None and hx.grad.shape == (1, 3, 4)
