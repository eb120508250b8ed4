"""average (and its alias mean), plain and weighted."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
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


@testing.parameterize(*testing.product({
    'axis': [None, 1, (0, 2)],
    'weighted': [False],
    'keepdims': [False, True],
    'dtype': [np.float16, np.float32, np.float64],
}), *testing.product({
    'axis': [1],
    'weighted': [True],
    'keepdims': [False, True],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestVariableMean(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (3, 2, 4)).astype(self.dtype)
        if not self.weighted:
            return x,
        return x, np.random.uniform(0.5, 1, (2,)).astype(self.dtype)

    def forward(self, inputs, device):
        x = inputs[0]
        assert isinstance(x, catena.Variable)
        weights = inputs[1] if self.weighted else None
        return x.mean(self.axis, weights=weights, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        weights = inputs[1].astype(np.float64) if self.weighted else None
        y = np.average(x, axis=self.axis, weights=weights)
        if self.keepdims:
            y = np.expand_dims(y, self.axis if self.axis is not None else (0, 1, 2))
        return np.asarray(y, dtype=self.dtype),


def test_variable_mean_takes_weights_and_keepdims_by_keyword_only():
    x = catena.Variable(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError):
        x.mean(1, np.ones(3, np.float32))
