"""flatten: one dimension in C order."""

# ruff: noqa: NPY002

import numpy as np

import catena
import catena.functions as F
from catena import testing


@testing.parameterize(*testing.product({
    'shape': [(2, 3), (2, 1, 2), ()],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestFlatten(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.flatten(inputs[0]),

    def forward_expected(self, inputs):
        x = inputs[0]
        return np.array([x[i] for i in np.ndindex(*x.shape)], dtype=self.dtype),


def test_one_dimensional_input_is_returned():
    x = catena.Variable(np.arange(3.0))
    assert F.flatten(x) is x
