"""get_item."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

_SLICES = [
    0,
    (1, 2),                                   # a single element: a 0-d result
    slice(1, None),
    (slice(None), slice(0, 4, 2)),
    (Ellipsis, 1),
    (None, 1, slice(None, None, -1)),
    [2, 0, 2],                                # a repeated row
    (slice(None), np.array([[0, 3], [3, 3]])),
    (np.array([0, 2]), np.array([1, 1])),
    np.array([True, False, True]),
    (Ellipsis, None),
    [],                                       # an empty list selects nothing
    (slice(None), []),
]


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


def _reference(x, slices):
    # Index a grid of flat positions with NumPy, then pick the elements one by one.
    positions = np.arange(x.size).reshape(x.shape)
    chosen = np.asarray(positions[slices])
    return np.array([x.flat[p] for p in chosen.ravel()], dtype=x.dtype).reshape(chosen.shape)


@testing.parameterize(*_with_dtypes({
    'slices': _SLICES,
}))
class TestGetItem(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 4)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.get_item(inputs[0], self.slices),

    def forward_expected(self, inputs):
        return _reference(inputs[0], self.slices),


def test_repeated_indices_accumulate_gradients():
    x = catena.Variable(np.zeros((3, 2)))
    y = F.get_item(x, [0, 0, 2])
    y.grad = np.ones((3, 2))
    y.backward()
    np.testing.assert_array_equal(x.grad, [[2, 2], [0, 0], [1, 1]])


def test_variable_and_list_indices():
    x = np.arange(6.0).reshape(2, 3)
    index = catena.Variable(np.array([2, 0]))
    np.testing.assert_array_equal(F.get_item(x, (slice(None), index)).array, [[2, 0], [5, 3]])
    np.testing.assert_array_equal(F.get_item(x, ([1, 0],)).array, [[3, 4, 5], [0, 1, 2]])


def test_scalar_result_is_an_array():
    y = F.get_item(np.arange(3.0), 1)
    assert isinstance(y.array, np.ndarray) and y.shape == ()


def test_too_many_indices_are_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim >= 3'):
        F.get_item(np.zeros((2, 3)), (0, 0, 0))


def test_bad_index_type_is_rejected():
    with pytest.raises(TypeError, match='an index must be'):
        F.get_item(np.zeros(3), 'a')


def test_a_list_of_ints_is_one_index_and_any_other_list_a_tuple():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(F.get_item(x, [2, 0]).array, x[[2, 0]])
    np.testing.assert_array_equal(F.get_item(x, [np.int64(1)]).array, x[[1]])
    np.testing.assert_array_equal(F.get_item(x, [1, slice(None, None, 2)]).array, x[1, ::2])
    np.testing.assert_array_equal(F.get_item(x, [[0, 2], [1, 3]]).array, x[[0, 2], [1, 3]])
    np.testing.assert_array_equal(F.get_item(x, [Ellipsis, 1]).array, x[..., 1])
    v = catena.Variable(x)
    y = F.get_item(v, [slice(1, None), [0, 0]])
    y.grad = np.ones_like(y.array)
    y.backward()
    expected = np.zeros_like(x)
    expected[1:, 0] = 2
    np.testing.assert_array_equal(v.grad, expected)
