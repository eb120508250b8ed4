"""reshape."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.array.reshape import Reshape
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    'shapes': [
        ((2, 3), (3, 2)),
        ((2, 3, 4), (6, -1)),
        ((2, 3, 4), (-1,)),
        ((6,), (1, 2, 1, 3)),
        ((), (1, 1)),
        ((1, 1), ()),
        ((0, 3), (3, 0)),
    ],
}))
class TestReshape(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shapes[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.reshape(inputs[0], self.shapes[1]),

    def forward_expected(self, inputs):
        x, = inputs
        out_shape = list(self.shapes[1])
        if -1 in out_shape:
            known = int(np.prod([d for d in out_shape if d != -1]))
            out_shape[out_shape.index(-1)] = x.size // known
        # Row-major order: element k of the flattened input lands at position k.
        flat = [x[np.unravel_index(k, x.shape)] for k in range(x.size)]
        return np.array(flat, dtype=self.dtype).reshape(out_shape),


def test_gradient_has_the_input_shape():
    x = catena.Variable(np.arange(6.0).reshape(2, 3))
    y = F.reshape(x, (3, 2))
    assert isinstance(y.creator, Reshape)
    y.grad = np.arange(6.0).reshape(3, 2) * 10
    y.backward()
    np.testing.assert_array_equal(x.grad, np.arange(6.0).reshape(2, 3) * 10)


def test_int_shape_and_same_shape():
    assert F.reshape(np.zeros((2, 3)), 6).shape == (6,)
    x = catena.Variable(np.zeros((2, 3)))
    assert F.reshape(x, (2, 3)) is x


def test_contiguous_input_gives_a_view():
    x = np.arange(6.0)
    assert np.shares_memory(F.reshape(x, (2, 3)).array, x)


def test_size_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.size == 4'):
        F.reshape(np.zeros((2, 3)), (2, 2))
    with pytest.raises(InvalidType, match=r'x\.size % 4 == 0'):
        F.reshape(np.zeros((2, 3)), (4, -1))


def test_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match='-1 at most once'):
        F.reshape(np.zeros((2, 3)), (-1, -1))
    with pytest.raises(ValueError, match='must not contain negative sizes'):
        F.reshape(np.zeros((2, 3)), (-2, -3))
