"""batch_l2_norm_squared."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape': [(4, 3), (4, 3, 2), (1, 5)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestBatchL2NormSquared(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.batch_l2_norm_squared(inputs[0]),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64).reshape(len(inputs[0]), -1)
        return (x * x).sum(axis=1).astype(self.dtype),


def test_needs_a_batch_axis():
    with pytest.raises(InvalidType, match='x.ndim'):
        F.batch_l2_norm_squared(np.ones((3,), np.float32))
