"""max_pooling_2d: forward and indexes against direct loops, gradients to second order, errors."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import max_pooling_2d as module
from catena.utils import type_check


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _count_windows(size, k, s, p, cover_all):
    """Windows start at -p, -p + s, ...; one is kept while it fits in the padded input or,
    with cover_all, while the windows before it leave padded pixels uncovered."""
    count = 0
    while True:
        start = count * s - p
        if start + k <= size + p or (cover_all and start - s + k < size + p):
            count += 1
        else:
            return count


def _reference(x, ksize, stride, pad, cover_all):
    """The maximum of each window and its first row-major argmax, by loops."""
    n, c, h, w = x.shape
    (kh, kw), (sy, sx), (ph, pw) = ksize, stride, pad
    oh = _count_windows(h, kh, sy, ph, cover_all)
    ow = _count_windows(w, kw, sx, pw, cover_all)
    y = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i, j in itertools.product(range(oh), range(ow)):
        for a, b in itertools.product(range(kh), range(kw)):
            r, t = i * sy + a - ph, j * sx + b - pw
            if 0 <= r < h and 0 <= t < w:
                for m, ch in itertools.product(range(n), range(c)):
                    if x[m, ch, r, t] > y[m, ch, i, j]:
                        y[m, ch, i, j] = x[m, ch, r, t]
                        idx[m, ch, i, j] = a * kw + b
    return y, idx


def _distinct(shape, dtype):
    """Distinct values in [-1, 1) spaced 2 / size apart, so that no window has a tie."""
    size = int(np.prod(shape))
    return (np.random.permutation(size).reshape(shape) * (2.0 / size) - 1).astype(dtype)


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 6, 5), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': True},
        {'shape': (2, 3, 6, 5), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': False},
        {'shape': (2, 2, 7, 6), 'ksize': 3, 'stride': 2, 'pad': 1, 'cover_all': True},
        {'shape': (2, 2, 7, 6), 'ksize': 3, 'stride': 2, 'pad': 1, 'cover_all': False},
        {'shape': (1, 2, 7, 5), 'ksize': (3, 2), 'stride': (2, 1), 'pad': (1, 0),
         'cover_all': False},
        {'shape': (1, 1, 4, 4), 'ksize': 4, 'stride': 1, 'pad': 0, 'cover_all': False},
        {'shape': (2, 2, 5, 5), 'ksize': 2, 'stride': 3, 'pad': 0, 'cover_all': True},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 1, 'pad': 2, 'cover_all': True},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestMaxPooling2D(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.max_pooling_2d(x, self.ksize, self.stride, self.pad, self.cover_all),

    def forward_expected(self, inputs):
        x, = inputs
        stride = self.ksize if self.stride is None else self.stride
        y, _ = _reference(x, _pair(self.ksize), _pair(stride), _pair(self.pad), self.cover_all)
        return y,


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((2, 3, 6, 5), 2, None, 0, True),
    ((2, 2, 7, 6), 3, 2, 1, True),
    ((1, 2, 7, 5), (3, 2), (2, 1), (1, 0), False),
])
def test_return_indices(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape, np.float32)
    y, indexes = F.max_pooling_2d(x, ksize, stride, pad, cover_all, return_indices=True)
    expected_y, expected_idx = _reference(x, _pair(ksize), _pair(ksize if stride is None
                                                                   else stride),
                                          _pair(pad), cover_all)
    np.testing.assert_array_equal(y.array, expected_y)
    assert indexes.dtype == np.intp
    np.testing.assert_array_equal(indexes, expected_idx)


def test_ties_take_the_first_maximum_and_skip_the_padding():
    x = np.ones((1, 1, 4, 4), np.float32)
    y, indexes = F.max_pooling_2d(x, 3, stride=2, pad=1, cover_all=False,
                                  return_indices=True)
    # The first real pixel of each window: the padding (-inf) never wins.
    np.testing.assert_array_equal(indexes[0, 0], [[4, 3], [1, 0]])
    np.testing.assert_array_equal(y.array, np.ones((1, 1, 2, 2)))


def test_indices_also_without_backprop():
    x = _distinct((1, 1, 4, 4), np.float32)
    with catena.no_backprop_mode():
        y = F.max_pooling_2d(x, 2)
        y2, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(y.array, y2.array)
    np.testing.assert_array_equal(indexes, _reference(x, (2, 2), (2, 2), (0, 0), True)[1])


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(_distinct((2, 2, 5, 5), np.float64))
    y = F.max_pooling_2d(x, 3, 2, 1)
    assert type(y.creator) is module.MaxPooling2D
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.MaxPooling2DGrad
    # Each window sends its gradient to its maximum: the sum is the window count.
    assert gx.array.sum() == y.size
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.MaxPooling2DWithIndexes
    np.testing.assert_array_equal(ggy.array, y.array)


def test_cover_all_changes_the_output_size():
    x = np.zeros((1, 1, 6, 5), np.float32)
    assert F.max_pooling_2d(x, 3, 2).shape == (1, 1, 3, 2)
    assert F.max_pooling_2d(x, 3, 2, cover_all=False).shape == (1, 1, 2, 2)


def test_kernel_larger_than_the_padded_input():
    x = np.zeros((1, 2, 3, 4), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape = \(1, 2, 3, 4\), ksize = '
                                                     r'\(5, 5\)'):
        F.max_pooling_2d(x, 5, stride=1, cover_all=False)
    assert F.max_pooling_2d(x, 5, stride=1, pad=1).shape == (1, 2, 1, 2)


def test_invalid_input_types():
    with pytest.raises(type_check.InvalidType, match='x.ndim == 4'):
        F.max_pooling_2d(np.zeros((1, 2, 3), np.float32), 2)
    with pytest.raises(type_check.InvalidType, match='x.dtype.kind == f'):
        F.max_pooling_2d(np.zeros((1, 2, 4, 4), np.int32), 2)


@pytest.mark.parametrize('kwargs, error, message', [
    ({'ksize': 0}, ValueError, 'ksize must be at least 1'),
    ({'ksize': 2, 'stride': 0}, ValueError, 'stride must be at least 1'),
    ({'ksize': 2, 'pad': -1}, ValueError, 'pad must be at least 0'),
    ({'ksize': (2, 2, 2)}, ValueError, 'ksize must be an int or a sequence of 2 ints'),
    ({'ksize': 2.5}, TypeError, 'ksize must be an int'),
])
def test_invalid_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        F.max_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), **kwargs)
