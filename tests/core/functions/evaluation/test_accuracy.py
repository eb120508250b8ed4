"""accuracy and binary_accuracy: values against NumPy counts, ignore labels, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((10, 3), (10,)), ((4, 3, 2, 2), (4, 2, 2)), ((5, 4, 1), (5,)), ((0, 3), (0,))],
    'ignore_label': [None, -1, 1],
}))
class TestAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        y_shape, t_shape = self.shapes
        y = np.random.uniform(-1, 1, y_shape).astype(self.dtype)
        low = -1 if self.ignore_label == -1 else 0
        t = np.random.randint(low, y_shape[1], t_shape).astype(np.int32)
        if t.size:
            # Some predictions right for sure, whatever the draw.
            t.flat[0] = y.argmax(axis=1).ravel()[0]
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return F.accuracy(y, t, ignore_label=self.ignore_label),

    def forward_expected(self, inputs):
        y, t = inputs
        pred = y.argmax(axis=1).reshape(t.shape)
        valid = np.ones(t.shape, bool) if self.ignore_label is None else t != self.ignore_label
        right = int(((pred == t) & valid).sum())
        total = int(valid.sum())
        return np.asarray(right / total if total else 0.0, dtype=self.dtype),


def test_accuracy_counts():
    y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7], [0.6, 0.4]], dtype=np.float32)
    t = np.array([1, 1, -1, 0], dtype=np.int32)
    assert F.accuracy(y, t, ignore_label=-1).array == np.float32(2 / 3)
    every_ignored = F.accuracy(y, np.full(4, -1, np.int32), ignore_label=-1)
    assert every_ignored.array == 0.0 and every_ignored.dtype == np.float32
    assert F.accuracy(y, np.array([1, 0, 1, 0], np.int32)).array == 1.0


def test_accuracy_takes_no_gradient():
    y = catena.Variable(np.random.uniform(-1, 1, (4, 3)).astype(np.float32))
    acc = F.accuracy(y, np.array([0, 1, 2, 0], np.int32))
    assert not acc.requires_grad and acc.creator is None
    assert acc.shape == () and acc.dtype == np.float32


def test_accuracy_errors():
    y = np.zeros((3, 4), np.float32)
    with pytest.raises(InvalidType, match=r't\.dtype\.kind'):
        F.accuracy(y, np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match=r'y\.dtype\.kind'):
        F.accuracy(np.zeros((3, 4), np.int32), np.zeros(3, np.int32))
    with pytest.raises(InvalidType, match=r'y\.shape\[0\] == t\.shape\[0\]'):
        F.accuracy(y, np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match=r'y\.shape'):
        F.accuracy(np.zeros((3, 4, 2), np.float32), np.zeros((3, 5), np.int32))
    with pytest.raises(ValueError, match=r't \(shape \(3,\), dtype int32\).*\[0, 4\).*'
                                         r'shape \(3, 4\).* 4 to 4'):
        F.accuracy(y, np.array([0, 1, 4], np.int32))
    with pytest.raises(ValueError, match='from -1'):
        F.accuracy(y, np.array([0, 1, -1], np.int32))
    with pytest.raises(ValueError, match='ignore_label 3'):
        F.accuracy(y, np.array([0, -2, 3], np.int32), ignore_label=3)


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(10,), (4, 3), (0,)],
    'ignore': [False, True],
}))
class TestBinaryAccuracy(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        y = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        low = -1 if self.ignore else 0
        t = np.random.randint(low, 2, self.shape).astype(np.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return F.binary_accuracy(y, t),

    def forward_expected(self, inputs):
        y, t = inputs
        valid = t != -1
        right = int((((y >= 0).astype(np.int32) == t) & valid).sum())
        total = int(valid.sum())
        return np.asarray(right / total if total else 0.0, dtype=self.dtype),


def test_binary_accuracy_counts_and_zero_threshold():
    y = np.array([0.0, -0.5, 2.0, -1.0, 3.0], np.float32)
    t = np.array([1, 0, 0, -1, -1], np.int32)
    acc = F.binary_accuracy(catena.Variable(y), t)
    assert acc.array == np.float32(2 / 3)
    assert not acc.requires_grad and acc.creator is None
    assert F.binary_accuracy(y, np.full(5, -1, np.int32)).array == 0.0


def test_binary_accuracy_errors():
    with pytest.raises(InvalidType, match=r't\.shape == y\.shape'):
        F.binary_accuracy(np.zeros((3, 2), np.float32), np.zeros((3,), np.int32))
    with pytest.raises(InvalidType, match=r't\.dtype\.kind'):
        F.binary_accuracy(np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r't \(shape \(3,\), dtype int32\).*0, 1 or -1.*2'):
        F.binary_accuracy(np.zeros(3, np.float32), np.array([0, 1, 2], np.int32))
