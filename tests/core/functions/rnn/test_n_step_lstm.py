"""n_step_lstm / n_step_bilstm: Chainer's weight order, variable lengths, dropout, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cell(x, h, c, w, b):
    """One LSTM step of one sequence, as documented: i, f, a (cell input), o use W0..W3."""
    i = _sigmoid(w[0] @ x + w[4] @ h + b[0] + b[4])
    f = _sigmoid(w[1] @ x + w[5] @ h + b[1] + b[5])
    a = np.tanh(w[2] @ x + w[6] @ h + b[2] + b[6])
    o = _sigmoid(w[3] @ x + w[7] @ h + b[3] + b[7])
    c = f * c + i * a
    return o * np.tanh(c), c


def _reference(n_layers, directions, hx, cx, ws, bs, xs):
    """Runs every sequence on its own: sequence s is xs[t][s] for the t with B_t > s."""
    hy, cy = hx.astype(np.float64), cx.astype(np.float64)
    ys = [np.zeros((x.shape[0], directions * hx.shape[2])) for x in xs]
    for s in range(hx.shape[1]):
        length = sum(1 for x in xs if x.shape[0] > s)
        seq = [xs[t][s].astype(np.float64) for t in range(length)]
        for layer in range(n_layers):
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                h, c = hy[k, s].copy(), cy[k, s].copy()
                out = [None] * length
                for t in (range(length) if d == 0 else reversed(range(length))):
                    h, c = _cell(seq[t], h, c, ws[k], bs[k])
                    out[t] = h
                hy[k, s], cy[k, s] = h, c
                outputs.append(out)
            seq = [np.concatenate([out[t] for out in outputs]) for t in range(length)]
        for t in range(length):
            ys[t][s] = seq[t]
    dtype = hx.dtype
    return (hy.astype(dtype), cy.astype(dtype)) + tuple(y.astype(dtype) for y in ys)


def _random_arguments(n_layers, directions, n_units, in_size, batches, hx_batch, dtype):
    def u(*shape):
        return np.random.uniform(-1, 1, shape).astype(dtype)

    n_states = n_layers * directions
    hx, cx = u(n_states, hx_batch, n_units), u(n_states, hx_batch, n_units)
    xs = [u(b, in_size) for b in batches]
    ws, bs = [], []
    for k in range(n_states):
        layer_in = in_size if k < directions else n_units * directions
        ws.append([u(n_units, layer_in if j < 4 else n_units) for j in range(8)])
        bs.append([u(n_units) for _ in range(8)])
    return hx, cx, ws, bs, xs


_CONFIGS = [
    {'n_layers': 1, 'n_units': 2, 'in_size': 3, 'batches': (2, 2), 'hx_batch': 2},
    {'n_layers': 2, 'n_units': 2, 'in_size': 3, 'batches': (3, 2, 1), 'hx_batch': 3},
    # hx has a row that no sequence reaches: it passes through unchanged.
    {'n_layers': 2, 'n_units': 3, 'in_size': 2, 'batches': (2, 1), 'hx_batch': 3},
]


@testing.parameterize(*(testing.product_dict(
    _CONFIGS,
    testing.product({'bi': [False, True], 'dtype': [np.float32, np.float64]}),
) + testing.product_dict(
    _CONFIGS[1:2],  # float16 on the variable-length, two-layer case
    testing.product({'bi': [False, True], 'dtype': [np.float16]}),
)))
class TestNStepLSTM(testing.FunctionTestCase):

    def setUp(self):
        self.directions = 2 if self.bi else 1
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        hx, cx, ws, bs, xs = _random_arguments(
            self.n_layers, self.directions, self.n_units, self.in_size, self.batches,
            self.hx_batch, self.dtype)
        flat = [hx, cx] + xs
        for w, b in zip(ws, bs):
            flat += w + b
        return tuple(flat)

    def _unflatten(self, inputs):
        hx, cx = inputs[0], inputs[1]
        n_steps = len(self.batches)
        xs = list(inputs[2:2 + n_steps])
        params = inputs[2 + n_steps:]
        ws = [list(params[16 * k:16 * k + 8]) for k in range(len(params) // 16)]
        bs = [list(params[16 * k + 8:16 * k + 16]) for k in range(len(params) // 16)]
        return hx, cx, ws, bs, xs

    def forward(self, inputs, device):
        hx, cx, ws, bs, xs = self._unflatten(inputs)
        function = F.n_step_bilstm if self.bi else F.n_step_lstm
        hy, cy, ys = function(self.n_layers, 0.0, hx, cx, ws, bs, xs)
        assert isinstance(ys, tuple)
        return (hy, cy) + ys

    def forward_expected(self, inputs):
        hx, cx, ws, bs, xs = self._unflatten(inputs)
        return _reference(self.n_layers, self.directions, hx, cx, ws, bs, xs)


def test_sequences_through_transpose_sequence():
    # The documented way to call it: sort by length, transpose, run, transpose back.
    np.random.seed(1)
    seqs = [np.random.uniform(-1, 1, (n, 3)) for n in (4, 2, 1)]
    hx, cx, ws, bs, _ = _random_arguments(1, 2, 2, 3, (), 3, np.float64)
    xs = F.transpose_sequence(seqs)
    hy, cy, ys = F.n_step_bilstm(1, 0.0, hx, cx, ws, bs, xs)
    per_sequence = F.transpose_sequence(ys)
    expected = _reference(1, 2, hx, cx, ws, bs, [x.array for x in xs])
    for s, seq_out in enumerate(per_sequence):
        assert seq_out.shape == (len(seqs[s]), 4)
        for t in range(len(seqs[s])):
            testing.assert_allclose(seq_out.array[t], expected[2 + t][s])


def test_dropout_follows_config_train():
    np.random.seed(2)
    hx, cx, ws, bs, xs = _random_arguments(2, 1, 3, 2, (3, 3, 2), 3, np.float64)

    def run(ratio, n_layers=2, seed=0):
        np.random.seed(seed)
        hy, cy, ys = F.n_step_lstm(n_layers, ratio, hx[:n_layers], cx[:n_layers],
                                   ws[:n_layers], bs[:n_layers], xs)
        return np.concatenate([hy.array.ravel(), cy.array.ravel()]
                              + [y.array.ravel() for y in ys])

    plain = run(0.0)
    with catena.using_config('train', False):
        testing.assert_allclose(run(0.6), plain, atol=0, rtol=0)
    dropped = run(0.6)
    assert np.abs(dropped - plain).max() > 1e-3
    testing.assert_allclose(run(0.6), dropped, atol=0, rtol=0)  # seeded: reproducible
    assert np.abs(run(0.6, seed=1) - dropped).max() > 1e-3
    # The input of the first layer is never dropped.
    testing.assert_allclose(run(0.6, n_layers=1), run(0.0, n_layers=1), atol=0, rtol=0)


def test_empty_sequence_list_returns_the_initial_states():
    hx, cx, ws, bs, _ = _random_arguments(2, 1, 3, 2, (), 2, np.float32)
    hy, cy, ys = F.n_step_lstm(2, 0.0, hx, cx, ws, bs, [])
    assert ys == ()
    testing.assert_allclose(hy.array, hx, atol=0, rtol=0)
    testing.assert_allclose(cy.array, cx, atol=0, rtol=0)


def _valid():
    return _random_arguments(2, 1, 3, 2, (3, 2), 3, np.float32)


def _with(index, value):
    args = list(_valid())
    args[index] = value
    return args


@pytest.mark.parametrize(('make', 'message'), [
    (lambda: _with(0, np.zeros((2, 3), np.float32)), r'hx must have shape \(n_layers \* 1'),
    (lambda: _with(0, np.zeros((1, 3, 3), np.float32)), r'got \(1, 3, 3\)'),
    (lambda: _with(1, np.zeros((2, 3, 4), np.float32)), r'cx must have the shape of hx'),
    (lambda: _with(2, _valid()[2][:1]), r'ws must be a list of n_layers \* 1 = 2 lists; got 1'),
    (lambda: _with(2, [_valid()[2][0][:7], _valid()[2][1]]), r'ws\[0\] must hold 8 matrices'),
    (lambda: _with(2, [_valid()[2][0], [np.zeros((3, 2), np.float32)] * 8]),
     r'ws\[1\]\[0\] must have shape \(3, 3\).*got \(3, 2\)'),
    (lambda: _with(3, [_valid()[3][0], [np.zeros(4, np.float32)] * 8]),
     r'bs\[1\]\[0\] must have shape \(3,\); got \(4,\)'),
    (lambda: _with(4, [np.zeros((2, 2), np.float32), np.zeros((3, 2), np.float32)]),
     r'batch sizes must not increase: xs\[1\].shape\[0\] = 3 > xs\[0\].shape\[0\] = 2'),
    (lambda: _with(4, [np.zeros((4, 2), np.float32)]), r'xs\[0\].shape\[0\] = 4 > hx.shape\[1\]'),
    (lambda: _with(4, [np.zeros((3, 2), np.float32), np.zeros((2, 5), np.float32)]),
     r'xs\[1\] must have shape \(B_t, 2\); got \(2, 5\)'),
])
def test_invalid_arguments(make, message):
    hx, cx, ws, bs, xs = make()
    with pytest.raises(ValueError, match=message):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)


@pytest.mark.parametrize(('n_layers', 'ratio', 'message'), [
    (0, 0.0, 'n_layers must be a positive int'),
    (2, 1.0, r'dropout_ratio must be in \[0, 1\)'),
])
def test_invalid_scalars(n_layers, ratio, message):
    hx, cx, ws, bs, xs = _valid()
    with pytest.raises(ValueError, match=message):
        F.n_step_lstm(n_layers, ratio, hx, cx, ws, bs, xs)


def test_bilstm_counts_both_directions():
    hx, cx, ws, bs, xs = _valid()  # two lists of weights: one layer of a bi-LSTM at most
    with pytest.raises(ValueError, match=r'hx must have shape \(n_layers \* 2'):
        F.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs)


def test_cx_is_required():
    hx, _, ws, bs, xs = _valid()
    with pytest.raises(ValueError, match='cx must be the initial cell states'):
        F.n_step_lstm(2, 0.0, hx, None, ws, bs, xs)


def test_mixed_dtypes_raise_invalid_type():
    hx, cx, ws, bs, xs = _valid()
    xs = [x.astype(np.float64) for x in xs]
    with pytest.raises(InvalidType):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
