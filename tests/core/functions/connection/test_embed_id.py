"""embed_id: forward against a loop, gradients to second order, ignore_label, bad IDs."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'x_shape': [(4,), (2, 3)],
    'ignore_label': [None, -1, 2],
}))
class TestEmbedID(testing.FunctionTestCase):

    def generate_inputs(self):
        low = -1 if self.ignore_label == -1 else 0
        x = np.random.randint(low, 4, self.x_shape).astype(np.int32)
        x.flat[0] = 3
        x.flat[-1] = 3  # a repeated ID: its gradient rows add up
        if self.ignore_label is not None:
            x.flat[1] = self.ignore_label
        W = np.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs
        return F.embed_id(x, W, self.ignore_label),

    def forward_expected(self, inputs):
        x, W = inputs
        y = np.zeros(x.shape + (3,), dtype=self.dtype)
        for index in np.ndindex(*x.shape):
            if x[index] != self.ignore_label:
                y[index] = W[x[index]]
        return y,


def test_gradient_rows_add_up_and_ignored_rows_get_nothing():
    W = catena.Variable(np.zeros((3, 2)))
    x = np.array([1, 1, 0, -1], np.int32)
    y = F.embed_id(x, W, ignore_label=-1)
    y.grad = np.arange(8.0).reshape(4, 2)
    y.backward()
    np.testing.assert_array_equal(W.grad, [[4, 5], [2, 4], [0, 0]])
    assert type(y.creator).__name__ == 'EmbedIDFunction'


def test_invalid_types():
    with pytest.raises(type_check.InvalidType, match='x.dtype.kind == i'):
        F.embed_id(np.zeros(3, np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(type_check.InvalidType, match='W.ndim == 2'):
        F.embed_id(np.zeros(3, np.int32), np.zeros((4, 2, 1), np.float32))


@pytest.mark.parametrize('ids', [[0, 4], [-1, 1]])
def test_out_of_range_ids_in_debug_mode(ids):
    x = np.array(ids, np.int32)
    with catena.using_config('debug', True):
        with pytest.raises(ValueError, match=r'IDs must lie in \[0, 4\)'):
            F.embed_id(x, np.zeros((4, 2), np.float32))
    with catena.using_config('debug', True):
        F.embed_id(np.array([-1, 3], np.int32), np.zeros((4, 2), np.float32), ignore_label=-1)
