"""max_pooling_nd / _1d / _3d: forward against direct loops, gradients to second order, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import max_pooling_nd as module
from catena.utils import type_check


def _tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


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
    dims = x.shape[2:]
    outs = tuple(_count_windows(*args, cover_all) for args in zip(dims, ksize, stride, pad))
    y = np.full(x.shape[:2] + outs, -np.inf, dtype=x.dtype)
    idx = np.zeros(x.shape[:2] + outs, dtype=np.int64)
    for o in np.ndindex(*outs):
        for t, tap in enumerate(np.ndindex(*ksize)):
            pos = tuple(a * s + b - p for a, b, s, p in zip(o, tap, stride, pad))
            if all(0 <= q < d for q, d in zip(pos, dims)):
                for m, c in np.ndindex(*x.shape[:2]):
                    if x[(m, c) + pos] > y[(m, c) + o]:
                        y[(m, c) + o] = x[(m, c) + pos]
                        idx[(m, c) + o] = t
    return y, idx


def _distinct(shape, dtype):
    """Distinct values in [-1, 1) spaced 2 / size apart, so that no window has a tie."""
    size = int(np.prod(shape))
    return (np.random.permutation(size).reshape(shape) * (2.0 / size) - 1).astype(dtype)


@testing.parameterize(*testing.product_dict(
    [
        {'shape': (2, 3, 7), 'ksize': 3, 'stride': 2, 'pad': 1, 'cover_all': True,
         'wrapper': '1d'},
        {'shape': (2, 3, 7), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': False,
         'wrapper': '1d'},
        {'shape': (1, 2, 5, 4), 'ksize': (3, 2), 'stride': 2, 'pad': (1, 0),
         'cover_all': True, 'wrapper': 'nd'},
        {'shape': (1, 2, 4, 3, 5), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': True,
         'wrapper': '3d'},
        {'shape': (2, 1, 4, 3, 5), 'ksize': (2, 3, 2), 'stride': (1, 2, 2), 'pad': (0, 1, 1),
         'cover_all': False, 'wrapper': 'nd'},
        {'shape': (1, 1, 3, 2, 2, 3), 'ksize': 2, 'stride': 1, 'pad': 0, 'cover_all': False,
         'wrapper': 'nd'},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestMaxPoolingND(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        func = {'1d': F.max_pooling_1d, '3d': F.max_pooling_3d, 'nd': F.max_pooling_nd}
        return func[self.wrapper](x, self.ksize, self.stride, self.pad, self.cover_all),

    def forward_expected(self, inputs):
        x, = inputs
        n = x.ndim - 2
        stride = self.ksize if self.stride is None else self.stride
        y, _ = _reference(x, _tuple(self.ksize, n), _tuple(stride, n), _tuple(self.pad, n),
                          self.cover_all)
        return y,


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', [
    ((2, 3, 7), 3, 2, 1, True),
    ((1, 2, 4, 3, 5), (2, 3, 2), (1, 2, 2), (0, 1, 1), False),
])
def test_return_indices(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape, np.float32)
    y, indexes = F.max_pooling_nd(x, ksize, stride, pad, cover_all, return_indices=True)
    n = x.ndim - 2
    expected_y, expected_idx = _reference(x, _tuple(ksize, n), _tuple(stride, n),
                                          _tuple(pad, n), cover_all)
    np.testing.assert_array_equal(y.array, expected_y)
    np.testing.assert_array_equal(indexes, expected_idx)


def test_graph_nodes_and_double_backprop():
    x = catena.Variable(_distinct((2, 2, 5, 4, 3), np.float64))
    y = F.max_pooling_3d(x, 2, 1)
    assert type(y.creator) is module.MaxPoolingND
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], grad_outputs=[gy], enable_double_backprop=True)
    assert type(gx.creator) is module.MaxPoolingNDGrad
    ggx = catena.Variable(x.array.copy())
    ggy, = catena.grad([gx], [gy], grad_outputs=[ggx], enable_double_backprop=True)
    assert type(ggy.creator) is module.MaxPoolingNDWithIndexes
    np.testing.assert_array_equal(ggy.array, y.array)


def test_large_windows_use_wider_indexes():
    x = _distinct((1, 2, 12, 12), np.float32)
    y, indexes = F.max_pooling_nd(x, 12, return_indices=True)
    flat = x.reshape(1, 2, -1)
    np.testing.assert_array_equal(indexes.reshape(-1), flat.argmax(axis=2).reshape(-1))
    np.testing.assert_array_equal(y.array.reshape(-1), flat.max(axis=2).reshape(-1))


@pytest.mark.parametrize('func, shape', [
    (F.max_pooling_1d, (1, 2, 4, 4)),
    (F.max_pooling_3d, (1, 2, 4, 4)),
    (F.max_pooling_nd, (2, 3)),
])
def test_wrong_number_of_spatial_axes(func, shape):
    with pytest.raises(ValueError, match=r'x.shape is \(' + ', '.join(map(str, shape))):
        func(np.zeros(shape, np.float32), 2)


def test_kernel_larger_than_the_padded_input():
    x = np.zeros((1, 2, 3, 4, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match=r'x.shape = \(1, 2, 3, 4, 2\), ksize = '
                                                     r'\(2, 2, 3\)'):
        F.max_pooling_3d(x, (2, 2, 3), stride=1, cover_all=False)


@pytest.mark.parametrize('kwargs, message', [
    ({'ksize': (2, 2)}, 'ksize must be an int or a sequence of 3 ints'),
    ({'ksize': 2, 'stride': (1, 0, 1)}, 'stride must be at least 1'),
    ({'ksize': 2, 'pad': -1}, 'pad must be at least 0'),
])
def test_invalid_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        F.max_pooling_3d(np.zeros((1, 1, 4, 4, 4), np.float32), **kwargs)
