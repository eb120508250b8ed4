"""n_step_rnn / n_step_birnn: tanh and ReLU Elman RNNs, variable lengths, dropout, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


def _cell(x, h, w, b, activation):
    pre = w[0] @ x + w[1] @ h + b[0] + b[1]
    return np.tanh(pre) if activation == 'tanh' else np.maximum(pre, 0)


def _reference(n_layers, directions, hx, ws, bs, xs, activation):
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
                    h = _cell(seq[t], h, ws[k], bs[k], activation)
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
        ws.append([u(n_units, layer_in), u(n_units, n_units)])
        bs.append([u(n_units), u(n_units)])
    return hx, ws, bs, xs


_CONFIGS = [
    {'n_layers': 1, 'n_units': 2, 'in_size': 3, 'batches': (2, 2), 'hx_batch': 2},
    {'n_layers': 2, 'n_units': 2, 'in_size': 3, 'batches': (3, 2, 1), 'hx_batch': 3},
    {'n_layers': 2, 'n_units': 3, 'in_size': 2, 'batches': (2, 1), 'hx_batch': 3},
]


@testing.parameterize(*(testing.product_dict(
    _CONFIGS,
    testing.product({'bi': [False, True], 'activation': ['tanh', 'relu'],
                     'dtype': [np.float32, np.float64]}),
) + testing.product_dict(
    _CONFIGS[1:2],  # float16 on the variable-length, two-layer case
    testing.product({'bi': [False, True], 'activation': ['tanh', 'relu'],
                     'dtype': [np.float16]}),
)))
class TestNStepRNN(testing.FunctionTestCase):

    dodge_nondifferentiable = True  # relu's kink

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
        ws = [list(params[4 * k:4 * k + 2]) for k in range(len(params) // 4)]
        bs = [list(params[4 * k + 2:4 * k + 4]) for k in range(len(params) // 4)]
        return inputs[0], ws, bs, xs

    def forward(self, inputs, device):
        hx, ws, bs, xs = self._unflatten(inputs)
        function = F.n_step_birnn if self.bi else F.n_step_rnn
        hy, ys = function(self.n_layers, 0.0, hx, ws, bs, xs, activation=self.activation)
        assert isinstance(ys, tuple)
        return (hy,) + ys

    def forward_expected(self, inputs):
        hx, ws, bs, xs = self._unflatten(inputs)
        return _reference(self.n_layers, self.directions, hx, ws, bs, xs, self.activation)


def test_default_activation_is_tanh():
    np.random.seed(0)
    hx, ws, bs, xs = _random_arguments(1, 1, 2, 3, (2, 1), 2, np.float64)
    hy, ys = F.n_step_rnn(1, 0.0, hx, ws, bs, xs)
    expected = _reference(1, 1, hx, ws, bs, xs, 'tanh')
    testing.assert_allclose(hy.array, expected[0])
    hy, ys = F.n_step_birnn(1, 0.0, np.concatenate([hx, hx]), ws * 2, bs * 2, xs)
    testing.assert_allclose(ys[0].array, _reference(1, 2, np.concatenate([hx, hx]), ws * 2,
                                                    bs * 2, xs, 'tanh')[1])


def test_dropout_follows_config_train():
    np.random.seed(2)
    hx, ws, bs, xs = _random_arguments(2, 1, 3, 2, (3, 3, 2), 3, np.float64)

    def run(ratio, seed=0):
        np.random.seed(seed)
        hy, ys = F.n_step_rnn(2, ratio, hx, ws, bs, xs)
        return np.concatenate([hy.array.ravel()] + [y.array.ravel() for y in ys])

    plain = run(0.0)
    with catena.using_config('train', False):
        testing.assert_allclose(run(0.6), plain, atol=0, rtol=0)
    assert np.abs(run(0.6) - plain).max() > 1e-3


@pytest.mark.parametrize('function', [F.n_step_rnn, F.n_step_birnn])
def test_unknown_activation(function):
    hx, ws, bs, xs = _random_arguments(1, 1, 2, 3, (2,), 2, np.float32)
    with pytest.raises(ValueError, match='activation must be "tanh" or "relu"; got .sigmoid.'):
        function(1, 0.0, hx, ws, bs, xs, activation='sigmoid')


def test_invalid_weight_shapes():
    hx, ws, bs, xs = _random_arguments(2, 1, 3, 2, (3, 2), 3, np.float32)
    ws[1][1] = np.zeros((3, 2), np.float32)
    with pytest.raises(ValueError, match=r'ws\[1\]\[1\] must have shape \(3, 3\).*got \(3, 2\)'):
        F.n_step_rnn(2, 0.0, hx, ws, bs, xs)
    with pytest.raises(ValueError, match=r'ws\[0\] must hold 2 matrices; got 3'):
        F.n_step_rnn(2, 0.0, hx, [ws[0] + ws[0][:1], ws[1]], bs, xs)
    with pytest.raises(TypeError, match='xs must be a list of arrays'):
        F.n_step_rnn(2, 0.0, hx, ws, bs, np.zeros((2, 3, 2), np.float32))
