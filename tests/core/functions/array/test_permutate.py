"""permutate: reordering by a permutation (or its inverse) along an axis."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.permutate import Permutate
from catena.utils import type_check


@testing.parameterize(*testing.product_dict(
    [{'shape_axis': s} for s in [((4,), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 2), 0),
                                 ((2, 1), 1)]],
    [{'inv': False, 'index_dtype': np.int32}, {'inv': True, 'index_dtype': np.int64}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestPermutate(testing.FunctionTestCase):

    def generate_inputs(self):
        shape, axis = self.shape_axis
        x = np.random.uniform(-1, 1, shape).astype(self.dtype)
        indices = np.random.permutation(shape[axis]).astype(self.index_dtype)
        return x, indices

    def forward(self, inputs, device):
        x, indices = inputs
        return F.permutate(x, indices, self.shape_axis[1], self.inv),

    def forward_expected(self, inputs):
        x, indices = inputs
        axis = self.shape_axis[1]
        y = np.moveaxis(x, axis, 0)
        out = np.empty_like(y)
        for i, j in enumerate(indices):
            if self.inv:
                out[j] = y[i]
            else:
                out[i] = y[j]
        return np.moveaxis(out, 0, axis).copy(),


def test_indices_variable_and_gradient():
    x = catena.Variable(np.arange(3, dtype=np.float32))
    indices = catena.Variable(np.array([2, 0, 1], np.int32))
    y = F.permutate(x, indices)
    np.testing.assert_array_equal(y.array, [2, 0, 1])
    y.grad = np.array([10, 20, 30], np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [20, 30, 10])


@pytest.mark.parametrize('indices, match', [
    ([0, 0, 1], 'holds 0 more than once'),
    ([0, 1, 3], 'out-of-range index 3'),
    ([-1, 0, 1], 'out-of-range index -1'),
])
def test_not_a_permutation(indices, match):
    with pytest.raises(ValueError, match=match):
        F.permutate(np.zeros(3, np.float32), np.array(indices, np.int32))


@pytest.mark.parametrize('x, indices, axis, match', [
    (np.zeros(3, np.float32), np.arange(4, dtype=np.int32), 0, r'x\.shape\[0\] == 4'),
    (np.zeros(3, np.int32), np.arange(3, dtype=np.int32), 0, r'x\.dtype\.kind == f'),
    (np.zeros(3, np.float32), np.arange(3, dtype=np.int32), 1, r'x\.ndim > 1'),
])
def test_invalid_types(x, indices, axis, match):
    with pytest.raises(type_check.InvalidType, match=match):
        F.permutate(x, indices, axis)


@pytest.mark.parametrize('indices, error, match', [
    (np.arange(3, dtype=np.float32), TypeError, 'integer array; got dtype float32'),
    (np.zeros((3, 1), np.int32), ValueError, r'one-dimensional; got shape \(3, 1\)'),
])
def test_invalid_indices(indices, error, match):
    with pytest.raises(error, match=match):
        F.permutate(np.zeros(3, np.float32), indices)


def test_the_node_has_one_input_and_keeps_its_indices_as_chainers_did():
    x = catena.Variable(np.arange(6.0).reshape(3, 2))
    indices = catena.Variable(np.array([2, 0, 1], np.int32))
    y = F.permutate(x, indices)
    assert len(y.creator.inputs) == 1
    assert y.creator.indices is indices.array
    y.grad = np.ones((3, 2))
    y.backward()
    assert indices.grad is None


def test_the_node_class_takes_indices_first():
    node = Permutate(np.array([1, 2, 0]), axis=-1, inv=True)
    y, = node.apply((np.arange(6, dtype=np.float32).reshape(2, 3),))
    np.testing.assert_array_equal(y.array, [[2, 0, 1], [5, 3, 4]])


def test_unsigned_indices_and_lists():
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(F.permutate(x, np.array([1, 2, 0], np.uint8)).array, [1, 2, 0])
    np.testing.assert_array_equal(F.permutate(x, [1, 2, 0], inv=True).array, [2, 0, 1])
