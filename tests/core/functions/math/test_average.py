"""average (and its alias mean), plain and weighted."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.functions.math.average import Mean
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), 1), ((3, 2, 4), -1), ((3, 2, 4), (0, 2)),
                   ((), None)],
    'keepdims': [False],
    'dtype': [np.float16, np.float32, np.float64],
}), *testing.product({
    'shape_axis': [((3, 2, 4), None), ((3, 2, 4), (0, 2))],
    'keepdims': [True],
    'dtype': [np.float32],
}))
class TestAverage(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.average(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(np.mean(x, axis=self.axis, keepdims=self.keepdims),
                          dtype=self.dtype),


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 4), None), ((3, 4), 1), ((3, 2, 4), 0), ((3, 2, 4), -1)],
    'keepdims': [False, True],
    'dtype': [np.float32],
}))
class TestWeightedAverage(testing.FunctionTestCase):

    def setUp(self):
        self.shape, self.axis = self.shape_axis

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        w_shape = self.shape if self.axis is None else (self.shape[self.axis],)
        w = np.random.uniform(0.5, 1.5, w_shape).astype(self.dtype)
        return x, w

    def forward(self, inputs, device):
        x, w = inputs
        return F.average(x, axis=self.axis, weights=w, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, w = (a.astype(np.float64) for a in inputs)
        y = np.average(x, axis=self.axis, weights=w, keepdims=self.keepdims)
        return np.asarray(y, dtype=self.dtype),


def test_mean_is_average():
    assert F.mean is F.average
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = F.mean(x, axis=0)
    assert type(y.creator) is Mean or y.creator is None
    np.testing.assert_array_equal(y.array, [1.5, 2.5, 3.5])


def test_bad_axis():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='axis'):
        F.average(x, axis=2)
    with pytest.raises(ValueError, match='axis'):
        F.average(x, axis=(1, 1))
    with pytest.raises(TypeError, match='axis'):
        F.average(x, axis='0')


def test_bad_weights():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='weights'):
        F.average(x, weights=np.ones((3,), np.float32))
    with pytest.raises(ValueError, match='weights'):
        F.average(x, axis=1, weights=np.ones((2,), np.float32))
    with pytest.raises(ValueError, match='axis'):
        F.average(x, axis=(0, 1), weights=np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match='axis'):
        F.average(x, axis=3, weights=np.ones((2,), np.float32))
