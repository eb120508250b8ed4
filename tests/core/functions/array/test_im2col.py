"""im2col: forward against loops, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _reference(x, ksize, stride, pad, cover_all, dilate):
    n, c, h, w = x.shape
    outs = []
    for size, k, s, p, d in zip((h, w), ksize, stride, pad, dilate):
        extent = size + 2 * p - (k - 1) * d - 1
        outs.append((extent + (s - 1 if cover_all else 0)) // s + 1)
    kh, kw = ksize
    y = np.zeros((n, c * kh * kw) + tuple(outs), dtype=x.dtype)
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                for oy in range(outs[0]):
                    for ox in range(outs[1]):
                        r = oy * stride[0] + i * dilate[0] - pad[0]
                        q = ox * stride[1] + j * dilate[1] - pad[1]
                        if 0 <= r < h and 0 <= q < w:
                            y[:, (ch * kh + i) * kw + j, oy, ox] = x[:, ch, r, q]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 3, 4, 5), 'ksize': 2, 'stride': 1, 'pad': 0, 'cover_all': False,
         'dilate': 1},
        {'x_shape': (1, 2, 6, 5), 'ksize': (3, 2), 'stride': 2, 'pad': 1, 'cover_all': True,
         'dilate': 1},
        {'x_shape': (2, 2, 7, 6), 'ksize': (2, 3), 'stride': (2, 1), 'pad': (0, 1),
         'cover_all': False, 'dilate': (2, 1)},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestIm2Col(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.im2col(x, self.ksize, self.stride, self.pad, self.cover_all, self.dilate),

    def forward_expected(self, inputs):
        x, = inputs
        return _reference(x, _pair(self.ksize), _pair(self.stride), _pair(self.pad),
                          self.cover_all, _pair(self.dilate)),


def test_node_names():
    x = catena.Variable(np.random.rand(1, 1, 3, 3))
    y = F.im2col(x, 2)
    assert type(y.creator).__name__ == 'Im2Col'
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'Col2Im'
    # Each pixel is read by as many windows as cover it.
    np.testing.assert_array_equal(gx.array[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_errors():
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        F.im2col(np.zeros((1, 3, 3), np.float32), 2)
    with pytest.raises(ValueError, match=r'kernel \(4, 4\).*\(3, 3\)'):
        F.im2col(np.zeros((1, 1, 3, 3), np.float32), 4)
    with pytest.raises(ValueError, match='ksize must be at least 1'):
        F.im2col(np.zeros((1, 1, 3, 3), np.float32), 0)
