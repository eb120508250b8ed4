"""flip, fliplr and flipud: reversed axes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils import type_check


def _reverse(x, axis):
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    return x[tuple(index)].copy()


@testing.parameterize(*testing.product_dict(
    [{'shape': (2, 3), 'axis': a} for a in (0, 1, -1, -2)] + [{'shape': (2, 3, 4), 'axis': 2}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
))
class TestFlip(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.flip(inputs[0], self.axis),

    def forward_expected(self, inputs):
        return _reverse(inputs[0], self.axis),


@testing.parameterize(*testing.product({
    'shape': [(2, 3), (3, 2, 2)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestFlipLR(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.fliplr(inputs[0]),

    def forward_expected(self, inputs):
        return _reverse(inputs[0], 1),


@testing.parameterize(*testing.product({
    'shape': [(3,), (2, 3), (3, 2, 2)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestFlipUD(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.flipud(inputs[0]),

    def forward_expected(self, inputs):
        return _reverse(inputs[0], 0),


def test_invalid_arguments():
    with pytest.raises(type_check.InvalidType, match=r'x\.ndim > 2'):
        F.flip(np.zeros((2, 3), np.float32), 2)
    with pytest.raises(type_check.InvalidType, match=r'x\.ndim >= 3'):
        F.flip(np.zeros((2, 3), np.float32), -3)
    with pytest.raises(TypeError, match='axis must be an int'):
        F.flip(np.zeros((2, 3), np.float32), None)
    with pytest.raises(type_check.InvalidType, match=r'a\.ndim >= 2'):
        F.fliplr(np.zeros(3, np.float32))
    with pytest.raises(type_check.InvalidType, match=r'a\.ndim >= 1'):
        F.flipud(np.zeros((), np.float32))


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int32])
@pytest.mark.parametrize('axis', [0, 1, -1])
def test_private_flip_reverses_the_array_as_a_view(dtype, axis):
    from catena.functions.array.flip import _flip

    x = np.arange(6).reshape(2, 3).astype(dtype)
    y = _flip(x, axis)
    np.testing.assert_array_equal(y, _reverse(x, axis))
    assert np.shares_memory(x, y)
