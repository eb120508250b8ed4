"""relu6: clipped_relu with z = 6."""

# ruff: noqa: NPY002

import numpy as np

import catena
import catena.functions as F
from catena import testing


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 4), ()],
}))
class TestReLU6(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        x = np.random.uniform(-8, 8, self.shape)
        for kink in (0.0, 6.0):
            x = np.where(np.abs(x - kink) < 0.2, kink + 0.5, x)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.relu6(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.clip(x, 0, 6), dtype=self.dtype),


def test_values_and_gradient():
    x = catena.Variable(np.array([-1.0, 3.0, 7.0]))
    y = F.relu6(x)
    np.testing.assert_array_equal(y.array, [0.0, 3.0, 6.0])
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])
    assert type(y.creator_node).__name__ == 'ClippedReLU'
