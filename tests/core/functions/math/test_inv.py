"""inv and batch_inv."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _well_conditioned(shape, dtype):
    n = shape[-1]
    a = np.random.uniform(-1, 1, shape) + n * np.eye(n)
    return a.astype(dtype)


@testing.parameterize(*testing.product({
    'batched': [False, True],
    'n': [1, 3],
    'dtype': [np.float32, np.float64],
}))
class TestInv(testing.FunctionTestCase):

    def generate_inputs(self):
        shape = (2, self.n, self.n) if self.batched else (self.n, self.n)
        return _well_conditioned(shape, self.dtype),

    def forward(self, inputs, device):
        function = F.batch_inv if self.batched else F.inv
        return function(inputs[0]),

    def forward_expected(self, inputs):
        return np.linalg.inv(inputs[0].astype(np.float64)).astype(self.dtype),


def test_float16_goes_through_float32():
    a = _well_conditioned((3, 3), np.float16)
    y = F.inv(a)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.array, np.linalg.inv(a.astype(np.float64)), rtol=5e-3,
                               atol=5e-3)


def test_singular_matrix():
    with pytest.raises(np.linalg.LinAlgError):
        F.inv(np.zeros((2, 2), np.float32))


@pytest.mark.parametrize('function, shape', [
    (F.inv, (2, 3)), (F.inv, (2, 2, 2)), (F.batch_inv, (2, 2)), (F.batch_inv, (2, 2, 3))])
def test_bad_shapes(function, shape):
    with pytest.raises(InvalidType, match='a.'):
        function(np.ones(shape, np.float32))
