"""split_axis."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.split_axis import SplitAxis, SplitAxisGrad
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'case': [
        ((6, 4), 2, 0),
        ((6, 4), 3, 0),
        ((2, 6, 3), 3, 1),
        ((2, 3, 6), 2, -1),
        ((6, 4), [2, 5], 0),
        ((6, 4), [1], 1),
        ((6, 4), [0, 2, 2, 6], 0),   # empty pieces
        ((6, 4), [-2], 0),           # a negative index counts from the end
        ((6, 4), np.array([3]), 0),
        ((6,), 1, 0),
        ((6, 4), [], 0),
    ],
}))
class TestSplitAxis(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.case[0]).astype(self.dtype),

    def forward(self, inputs, device):
        _, ios, axis = self.case
        return F.split_axis(inputs[0], ios, axis)

    def forward_expected(self, inputs):
        x, = inputs
        _, ios, axis = self.case
        axis = axis % x.ndim
        length = x.shape[axis]
        if isinstance(ios, int):
            bounds = [length * i // ios for i in range(ios + 1)]
        else:
            bounds = [0] + [i % length if i < 0 else i for i in list(ios)] + [length]
        return tuple(x.take(np.arange(a, b), axis=axis) for a, b in zip(bounds, bounds[1:]))


def test_forward_makes_views_not_copies():
    x = np.arange(24.0).reshape(4, 6)
    for ios, axis in ((2, 0), ([1, 4], 1)):
        for y in F.split_axis(x, ios, axis):
            assert np.shares_memory(y.array, x)


def test_force_tuple():
    x = np.zeros((2, 3))
    single = F.split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(single, catena.Variable) and single.shape == (2, 3)
    assert isinstance(F.split_axis(x, 1, 0), tuple)
    assert len(F.split_axis(x, 2, 0, force_tuple=False)) == 2


def test_unused_pieces_get_zero_gradient_through_a_node():
    x = catena.Variable(np.arange(6.0).reshape(3, 2))
    a, b, c = F.split_axis(x, 3, 0)
    y = F.sum(b * b)
    gx, = catena.grad([y], [x], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [[0, 0], [4, 6], [0, 0]])
    assert isinstance(gx.creator, SplitAxisGrad)
    # The concatenation is itself differentiable.
    F.sum(gx * gx).backward()
    np.testing.assert_array_equal(x.grad, [[0, 0], [16, 24], [0, 0]])  # d(4 b^2) = 8 b


def test_attributes_for_exporters():
    node = SplitAxis([1, 3], 1)
    assert node.indices == (1, 3) and node.sections is None and node.axis == 1
    node = SplitAxis(2, 0)
    assert node.indices is None and node.sections == 2


def test_sections_must_divide_the_axis():
    with pytest.raises(InvalidType, match=r'x\.shape\[0\] % sections == 0'):
        F.split_axis(np.zeros((5, 2)), 2, 0)


def test_index_beyond_the_axis_is_rejected():
    with pytest.raises(InvalidType, match=r'max\(indices\) <= x\.shape\[1\]'):
        F.split_axis(np.zeros((2, 3)), [1, 4], 1)


def test_unsorted_indices_are_rejected():
    with pytest.raises(ValueError, match='indices must be in increasing order'):
        F.split_axis(np.zeros((6, 2)), [4, 2], 0)


def test_axis_out_of_range_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim'):
        F.split_axis(np.zeros((6, 2)), 2, 2)


@pytest.mark.parametrize('bad', [0, -2])
def test_non_positive_sections_are_rejected(bad):
    with pytest.raises(ValueError, match='number of sections must be positive'):
        F.split_axis(np.zeros((6, 2)), bad, 0)


def test_bad_argument_types_are_rejected():
    with pytest.raises(TypeError, match='indices_or_sections'):
        F.split_axis(np.zeros((6, 2)), 2.0, 0)
    with pytest.raises(TypeError, match='indices_or_sections'):
        F.split_axis(np.zeros((6, 2)), [1.5], 0)
    with pytest.raises(TypeError, match='axis must be an int'):
        F.split_axis(np.zeros((6, 2)), 2, None)
