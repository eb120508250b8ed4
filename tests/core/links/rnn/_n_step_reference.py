"""NumPy references of the n-step recurrent links, one sequence at a time."""

import numpy as np


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm(x, h, c, w, b):
    i = _sigmoid(x @ w[0].T + h @ w[4].T + b[0] + b[4])
    f = _sigmoid(x @ w[1].T + h @ w[5].T + b[1] + b[5])
    a = np.tanh(x @ w[2].T + h @ w[6].T + b[2] + b[6])
    o = _sigmoid(x @ w[3].T + h @ w[7].T + b[3] + b[7])
    c = f * c + i * a
    return o * np.tanh(c), c


def _gru(x, h, c, w, b):
    r = _sigmoid(x @ w[0].T + h @ w[3].T + b[0] + b[3])
    z = _sigmoid(x @ w[1].T + h @ w[4].T + b[1] + b[4])
    h_bar = np.tanh(x @ w[2].T + b[2] + r * (h @ w[5].T + b[5]))
    return (1 - z) * h_bar + z * h, None


def _elman(activation):
    def step(x, h, c, w, b):
        z = x @ w[0].T + h @ w[1].T + b[0] + b[1]
        return (np.tanh(z) if activation == 'tanh' else np.maximum(z, 0)), None
    return step


STEPS = {'lstm': _lstm, 'gru': _gru, 'tanh': _elman('tanh'), 'relu': _elman('relu')}


def reference(link, kind, hx, cx, xs):
    """Returns (hy, cy, ys) in float64 for the link's CPU parameters (no dropout)."""
    step = STEPS[kind]
    ws = [[w.array.astype(np.float64) for w in ws_k] for ws_k in link.ws]
    bs = [[b.array.astype(np.float64) for b in bs_k] for bs_k in link.bs]
    directions = link.direction
    hy = np.array(hx, dtype=np.float64)
    cy = None if cx is None else np.array(cx, dtype=np.float64)
    ys = []
    for s, x in enumerate(xs):
        layer_in = x.astype(np.float64)
        for layer in range(link.n_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                h = hy[k, s]
                c = None if cy is None else cy[k, s]
                seq = layer_in if d == 0 else layer_in[::-1]
                out = []
                for x_t in seq:
                    h, c = step(x_t[None], h[None], None if c is None else c[None],
                                ws[k], bs[k])
                    h = h[0]
                    c = None if c is None else c[0]
                    out.append(h)
                hy[k, s] = h
                if cy is not None:
                    cy[k, s] = c
                out = np.stack(out)
                outs.append(out if d == 0 else out[::-1])
            layer_in = np.concatenate(outs, axis=1)
        ys.append(layer_in)
    return hy, cy, ys
