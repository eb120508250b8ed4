"""n_step_gru / n_step_bigru: Chainer's weight order, variable lengths, dropout, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cell(x, h, w, b):
    """One GRU step of one sequence, as documented (reset r, update z, candidate h')."""
    r = _sigmoid(w[0] @ x + w[3] @ h + b[0] + b[3])
    z = _sigmoid(w[1] @ x + w[4] @ h + b[1] + b[4])
    candidate = np.tanh(w[2] @ x + b[2] + r * (w[5] @ h + b[5]))
    return (1 - z) * candidate + z * h


def _reference(n_layers, directions, hx, ws, bs, xs):
    """Runs every sequence on its own: sequence s is xs[t][s] for the t with B_t > s."""
    hy = hx.astype(np.float64)
    ys = [np.zeros((x.shape[0], directions * hx.shape[2])) for x in xs]
    for s in range(hx.shape[1]):
        length = sum(1 for x in xs if x.shape[0] > s)
        seq = [xs[t][s].astype(np.float64) for t in range(length)]
        for layer in range(n_layers):
            outputs = []
            for d in range(directions):
                k = layer * directions + d
                h = hy[k, s].copy()
                out = [None] * length
                for t in (range(length) if d == 0 else reversed(range(length))):
                    h = _cell(seq[t], h, ws[k], bs[k])
                    out[t] = h
                hy[k, s] = h
                outputs.append(out)
            seq = [np.concatenate([out[t] for out in outputs]) for t in range(length)]
        for t in range(length):
            ys[t][s] = seq[t]
    return (hy.astype(hx.dtype),) + tuple(y.astype(hx.dtype) for y in ys)


def _random_arguments(n_layers, directions, n_units, in_size, batches, hx_batch, dtype):
    def u(*shape):
        return np.random.uniform(-1, 1, shape).astype(dtype)

    n_states = n_layers * directions
    hx = u(n_states, hx_batch, n_units)
    xs = [u(b, in_size) for b in batches]
    ws, bs = [], []
    for k in range(n_states):
        layer_in = in_size if k < directions else n_units * directions
        ws.append([u(n_units, layer_in if j < 3 else n_units) for j in range(6)])
        bs.append([u(n_units) for _ in range(6)])
    return hx, ws, bs, xs


_CONFIGS = [
    {'n_layers': 1, 'n_units': 2, 'in_size': 3, 'batches': (2, 2), 'hx_batch': 2},
    {'n_layers': 2, 'n_units': 2, 'in_size': 3, 'batches': (3, 2, 1), 'hx_batch': 3},
    {'n_layers': 2, 'n_units': 3, 'in_size': 2, 'batches': (2, 1), 'hx_batch': 3},
]


@testing.parameterize(*(testing.product_dict(
    _CONFIGS,
    testing.product({'bi': [False, True], 'dtype': [np.float32, np.float64]}),
) + testing.product_dict(
    _CONFIGS[1:2],  # float16 on the variable-length, two-layer case
    testing.product({'bi': [False, True], 'dtype': [np.float16]}),
)))
class TestNStepGRU(testing.FunctionTestCase):

    def setUp(self):
        self.directions = 2 if self.bi else 1
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        hx, ws, bs, xs = _random_arguments(
            self.n_layers, self.directions, self.n_units, self.in_size, self.batches,
            self.hx_batch, self.dtype)
        flat = [hx] + xs
        for w, b in zip(ws, bs):
            flat += w + b
        return tuple(flat)

    def _unflatten(self, inputs):
        n_steps = len(self.batches)
        xs = list(inputs[1:1 + n_steps])
        params = inputs[1 + n_steps:]
        ws = [list(params[12 * k:12 * k + 6]) for k in range(len(params) // 12)]
        bs = [list(params[12 * k + 6:12 * k + 12]) for k in range(len(params) // 12)]
        return inputs[0], ws, bs, xs

    def forward(self, inputs, device):
        hx, ws, bs, xs = self._unflatten(inputs)
        function = F.n_step_bigru if self.bi else F.n_step_gru
        hy, ys = function(self.n_layers, 0.0, hx, ws, bs, xs)
        assert isinstance(ys, tuple)
        return (hy,) + ys

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self._unflatten(inputs)
        return _reference(self.n_layers, self.directions, hx, ws, bs, xs)


def test_dropout_follows_config_train():
    np.random.seed(2)
    hx, ws, bs, xs = _random_arguments(2, 2, 3, 2, (3, 3, 2), 3, np.float64)

    def run(ratio, seed=0):
        np.random.seed(seed)
        hy, ys = F.n_step_bigru(2, ratio, hx, ws, bs, xs)
        return np.concatenate([hy.array.ravel()] + [y.array.ravel() for y in ys])

    plain = run(0.0)
    with catena.using_config('train', False):
        testing.assert_allclose(run(0.6), plain, atol=0, rtol=0)
    dropped = run(0.6)
    assert np.abs(dropped - plain).max() > 1e-3
    testing.assert_allclose(run(0.6), dropped, atol=0, rtol=0)


@pytest.mark.parametrize(('bi', 'make', 'message'), [
    (False, lambda a: (a[0], a[1][:1], a[2], a[3]),
     r'ws must be a list of n_layers \* 1 = 2 lists; got 1'),
    (False, lambda a: (a[0], [a[1][0], a[1][1] + a[1][1][:2]], a[2], a[3]),
     r'ws\[1\] must hold 6 matrices; got 8'),
    (False, lambda a: (a[0], a[1], [a[2][0], a[2][1][:5]], a[3]),
     r'bs\[1\] must hold 6 vectors; got 5'),
    (False, lambda a: (a[0], [[np.zeros((3, 3), np.float32)] * 6, a[1][1]], a[2], a[3]),
     r'ws\[0\]\[0\] must have shape \(3, 2\).*got \(3, 3\)'),
    # A uni-directional second layer's (N, N) input weights in a bi-directional net.
    (True, lambda a: (np.zeros((4, 3, 3), np.float32), [a[1][0], a[1][0], a[1][1], a[1][1]],
                      [a[2][0], a[2][0], a[2][1], a[2][1]], a[3]),
     r'ws\[2\]\[0\] must have shape \(3, 6\)'),
])
def test_invalid_arguments(bi, make, message):
    hx, ws, bs, xs = make(_random_arguments(2, 1, 3, 2, (3, 2), 3, np.float32))
    function = F.n_step_bigru if bi else F.n_step_gru
    with pytest.raises(ValueError, match=message):
        function(2, 0.0, hx, ws, bs, xs)
