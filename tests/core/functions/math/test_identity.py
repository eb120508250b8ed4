"""identity(*inputs)."""

# ruff: noqa: NPY002

import numpy as np

import catena
import catena.functions as F
from catena import testing
from catena.functions.math.identity import Identity


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'n_inputs': [1, 3],
}))
class TestIdentity(testing.FunctionTestCase):

    def generate_inputs(self):
        shapes = [(3, 2), (), (4,)][:self.n_inputs]
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in shapes)

    def forward(self, inputs, device):
        outputs = F.identity(*inputs)
        if self.n_inputs == 1:
            assert isinstance(outputs, catena.Variable)
            outputs = (outputs,)
        assert isinstance(outputs, tuple) and len(outputs) == self.n_inputs
        return outputs

    def forward_expected(self, inputs):
        return tuple(x.copy() for x in inputs)


def test_outputs_share_the_input_arrays_and_have_a_creator():
    x = catena.Variable(np.arange(3, dtype=np.float32))
    y = F.identity(x)
    assert y is not x
    assert y.array is x.array
    assert isinstance(y.creator, Identity)


def test_gradient_passes_through_only_where_given():
    a = catena.Variable(np.array([1.0, 2.0]))
    b = catena.Variable(np.array([3.0]))
    ya, yb = F.identity(a, b)
    F.sum(ya * 3).backward()
    np.testing.assert_array_equal(a.grad, [3.0, 3.0])
    assert b.grad is None


def test_any_dtype_and_no_inputs():
    y = F.identity(np.array([1, 2, 3]))
    np.testing.assert_array_equal(y.array, [1, 2, 3])
    assert F.identity() == ()
