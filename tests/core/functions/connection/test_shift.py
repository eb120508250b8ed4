"""shift: forward against a per-channel loop, gradients to second order, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _reference(x, kh, kw, dy, dx):
    n, c, h, w = x.shape
    groups = kh * kw
    size = c // groups
    y = np.zeros_like(x)
    for ch in range(c):
        group = min(ch // size, groups - 1)
        if group == (groups - 1) // 2:
            position = groups - 1
        elif group == groups - 1:
            position = (groups - 1) // 2
        else:
            position = group
        a = position // kw - kh // 2
        b = position % kw - kw // 2
        for r in range(h):
            for q in range(w):
                sr, sq = r - a * dy, q - b * dx
                if 0 <= sr < h and 0 <= sq < w:
                    y[:, ch, r, q] = x[:, ch, sr, sq]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'x_shape': (2, 9, 4, 5), 'ksize': 3, 'dilate': 1},
        {'x_shape': (1, 11, 5, 4), 'ksize': 3, 'dilate': 2},
        {'x_shape': (2, 4, 3, 6), 'ksize': (1, 3), 'dilate': (1, -2)},
        {'x_shape': (1, 26, 6, 6), 'ksize': 5, 'dilate': 1},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestShift(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.x_shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.shift(inputs[0], self.ksize, self.dilate),

    def forward_expected(self, inputs):
        kh, kw = (self.ksize,) * 2 if isinstance(self.ksize, int) else self.ksize
        dy, dx = (self.dilate,) * 2 if isinstance(self.dilate, int) else self.dilate
        return _reference(inputs[0], kh, kw, dy, dx),


def test_errors():
    x = np.zeros((1, 9, 3, 3), np.float32)
    with pytest.raises(ValueError, match='ksize must be an odd'):
        F.shift(x, ksize=2)
    with pytest.raises(ValueError, match='dilate must be a nonzero'):
        F.shift(x, dilate=0)
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\] >= 9'):
        F.shift(np.zeros((1, 8, 3, 3), np.float32))
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        F.shift(np.zeros((9, 3, 3), np.float32))
