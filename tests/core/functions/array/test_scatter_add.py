"""scatter_add."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

_SLICES = [
    (slice(None), 1),
    (1, slice(0, 3, 2)),
    (0, 1),                                       # a single element
    (Ellipsis, [0, 0, 2]),                        # a repeated column
    ([1, 0, 1], [0, 2, 0]),                       # a repeated element
    (np.array([[True, False, True], [False, True, False], [True, True, False]]),),
    [2, 0, 2],                                    # a list of ints: one integer-array index
    (slice(None), None, 2),
    [],                                           # an empty list selects nothing
    (slice(None), []),
]


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


def _reference(a, slices, b):
    # What ``a[slices] += b`` means when every selection counts: add elementwise
    # over an index grid that names each selected position explicitly.
    out = a.astype(np.float64)
    positions = np.arange(a.size).reshape(a.shape)
    if isinstance(slices, list):
        slices = (slices,)
    chosen = np.asarray(positions[slices]).ravel()
    for position, value in zip(chosen, np.asarray(b, np.float64).ravel()):
        out.flat[position] += value
    return out.astype(a.dtype)


@testing.parameterize(*_with_dtypes({
    'slices': _SLICES,
}))
class TestScatterAdd(testing.FunctionTestCase):

    def before_test(self, test_name):
        # The gradient for ``a`` is the output gradient itself; catena.grad drops the
        # seed of an output that is also a leaf input, so a product with one puts a
        # node between them for the double-backward check.
        self.through_node = test_name == 'test_double_backward'

    def generate_inputs(self):
        a = np.random.uniform(-1, 1, (3, 3)).astype(self.dtype)
        slices = (self.slices,) if isinstance(self.slices, list) else self.slices
        b_shape = np.empty((3, 3))[slices].shape
        b = np.random.uniform(-1, 1, b_shape).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        a, b = inputs
        y = F.scatter_add(a, self.slices, b)
        return (y * 1 if self.through_node else y),

    def forward_expected(self, inputs):
        a, b = inputs
        return _reference(a, self.slices, b),


def test_input_is_not_modified_and_repeats_accumulate():
    a = np.zeros((2, 3))
    y = F.scatter_add(a, (slice(None), [0, 0, 2]), np.ones((2, 3)))
    np.testing.assert_array_equal(y.array, [[2, 0, 1], [2, 0, 1]])
    assert not a.any()


def test_gradients():
    a = catena.Variable(np.zeros((2, 3)))
    b = catena.Variable(np.zeros(2))
    y = F.scatter_add(a, ([0, 0], [1, 1]), b)
    gy = np.arange(6.0).reshape(2, 3)
    y.grad = gy
    y.backward()  # consumes y.grad, as in Chainer
    np.testing.assert_array_equal(a.grad, gy)
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])


def test_b_is_not_broadcast():
    with pytest.raises(ValueError, match=r'b must have the shape of a\[slices\], \(2,\)'):
        F.scatter_add(np.zeros((2, 3)), (slice(None), 0), np.ones(()))


def test_too_many_indices_are_rejected():
    with pytest.raises(InvalidType, match=r'a\.ndim'):
        F.scatter_add(np.zeros(3), (0, 0), np.ones(()))


def test_dtype_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'a\.dtype == b\.dtype'):
        F.scatter_add(np.zeros(3, np.float32), 0, np.ones((), np.float64))


def test_bad_index_type_is_rejected():
    with pytest.raises(TypeError, match='slices may hold'):
        F.scatter_add(np.zeros(3), 'a', np.ones(()))


def test_more_than_one_ellipsis_is_rejected():
    with pytest.raises(ValueError, match='one Ellipsis'):
        F.scatter_add(np.zeros((2, 3)), (Ellipsis, Ellipsis), np.ones((2, 3)))
