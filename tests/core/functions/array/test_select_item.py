"""select_item."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


@testing.parameterize(*_with_dtypes({
    't_dtype': [np.int8, np.int32, np.int64],
    'shape': [(3, 4), (1, 1), (0, 3)],
}))
class TestSelectItem(testing.FunctionTestCase):

    def generate_inputs(self):
        batch, n = self.shape
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        t = np.random.randint(0, n, batch).astype(self.t_dtype)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return F.select_item(x, t),

    def forward_expected(self, inputs):
        x, t = inputs
        return np.array([x[i, t[i]] for i in range(len(t))], dtype=self.dtype),


def test_gradient_is_one_hot():
    x = catena.Variable(np.arange(6.0).reshape(2, 3))
    y = F.select_item(x, np.array([2, 0], np.int32))
    np.testing.assert_array_equal(y.array, [2.0, 3.0])
    y.grad = np.array([10.0, 20.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0, 0, 10], [20, 0, 0]])


def test_batch_size_mismatch_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.shape\[0\] == t\.shape\[0\]'):
        F.select_item(np.zeros((2, 3)), np.zeros(3, np.int32))


def test_wrong_ndim_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim == 2'):
        F.select_item(np.zeros((2, 3, 1)), np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match=r't\.ndim == 1'):
        F.select_item(np.zeros((2, 3)), np.zeros((2, 1), np.int32))


def test_non_integer_labels_are_rejected():
    with pytest.raises(InvalidType, match=r't\.dtype\.kind == i'):
        F.select_item(np.zeros((2, 3)), np.zeros(2, np.float32))


@pytest.mark.parametrize('label', [3, -1])
def test_labels_out_of_range_are_rejected(label):
    with pytest.raises(ValueError, match=r't must hold labels in \[0, 3\)'):
        F.select_item(np.zeros((2, 3)), np.array([0, label], np.int32))
