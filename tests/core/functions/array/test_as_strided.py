"""as_strided: views with element strides, gradients summed over overlaps."""

# ruff: noqa: NPY002

import itertools

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.as_strided import _stride_array
from catena.utils import type_check


def _expected(x, shape, strides, offset):
    flat = x.ravel()
    y = np.empty(shape, x.dtype)
    for index in itertools.product(*[range(n) for n in shape]):
        y[index] = flat[(offset or 0) + sum(i * s for i, s in zip(index, strides))]
    return y


@testing.parameterize(*testing.product_dict(
    [
        {'in_shape': (4,), 'shape': (3, 2), 'strides': (1, 1), 'offset': 0},
        {'in_shape': (2, 3), 'shape': (3, 2), 'strides': (1, 3), 'offset': None},
        {'in_shape': (12,), 'shape': (2, 2), 'strides': (-1, 4), 'offset': 3},
        {'in_shape': (3, 4), 'shape': (2, 3), 'strides': (4, 1), 'offset': 5},
        {'in_shape': (5,), 'shape': (3, 3), 'strides': (0, 1), 'offset': 1},
        {'in_shape': (2, 2), 'shape': (), 'strides': (), 'offset': 3},
        {'in_shape': (3,), 'shape': (0, 2), 'strides': (1, 1), 'offset': 0},
    ],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestAsStrided(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.in_shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.as_strided(x, self.shape, self.strides, self.offset),

    def forward_expected(self, inputs):
        x, = inputs
        return _expected(x, self.shape, self.strides, self.offset),


def test_overlapping_gradient_accumulates():
    x = catena.Variable(np.arange(4, dtype=np.float32))
    y = F.as_strided(x, (3, 2), (1, 1), 0)
    np.testing.assert_array_equal(y.array, [[0, 1], [1, 2], [2, 3]])
    y.grad = np.ones((3, 2), dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [1, 2, 2, 1])


def test_contiguous_input_is_viewed_not_copied():
    x = np.arange(6, dtype=np.float32)
    y = F.as_strided(x, (2, 2), (2, 1), 1)
    assert np.shares_memory(y.array, x)


def test_forward_works_on_integers_but_backward_needs_floats():
    x = catena.Variable(np.arange(4))
    y = F.as_strided(x, (2,), (2,))
    np.testing.assert_array_equal(y.array, [0, 2])
    y.grad = np.ones(2, dtype=y.dtype)
    with pytest.raises(TypeError, match='floating point'):
        y.backward()


def test_reading_past_the_end_is_invalid_type():
    with pytest.raises(type_check.InvalidType, match=r'x\.size > 4'):
        F.as_strided(np.zeros(4, np.float32), (3, 2), (1, 1), 1)


@pytest.mark.parametrize('args, error, match', [
    (((2,), (1, 1)), ValueError, 'same length'),
    (((-1,), (1,)), ValueError, 'negative'),
    (((2,), (-1,), 0), ValueError, 'before the first element'),
    (((2,), (1,), -1), ValueError, 'storage_offset'),
    (((2.0,), (1,)), TypeError, 'shape must be'),
    (((2,), 'a'), TypeError, 'strides must be'),
])
def test_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        F.as_strided(np.zeros(4, np.float32), *args)


class TestStrideArray:
    """The array-level kernel, reachable as Chainer's ``as_strided._stride_array``."""

    def test_element_strides_and_offset(self):
        x = np.arange(8, dtype=np.int32)
        y = _stride_array(x, (3, 3), (-1, 2), 3)
        expected = np.array([[3 - i + 2 * j for j in range(3)] for i in range(3)])
        np.testing.assert_array_equal(y, expected)

    def test_reads_c_order_of_a_non_contiguous_input(self):
        x = np.arange(12, dtype=np.float64).reshape(3, 4).T
        y = _stride_array(x, (4,), (1,), 0)
        np.testing.assert_array_equal(y, x.ravel()[:4])

    @pytest.mark.parametrize('shape, strides, offset', [
        ((3, 3), (-1, 2), 1),   # before the first element
        ((3,), (4,), 0),        # past the last one
    ])
    def test_out_of_bounds_is_a_value_error(self, shape, strides, offset):
        with pytest.raises(ValueError, match='as_strided with shape'):
            _stride_array(np.arange(8.0), shape, strides, offset)
