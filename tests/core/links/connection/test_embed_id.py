"""EmbedID link: forward/backward on every device, ignore_label, defaults, from_params."""

# ruff: noqa: NPY002

import numpy as np
import pytest

from catena import initializers, testing
from catena.links.connection.embed_id import EmbedID


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'x_shape': [(4,), (2, 3)],
    'ignore_label': [None, -1],
}))
class TestEmbedID(testing.LinkTestCase):

    def generate_params(self):
        return np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),

    def create_link(self, initializers):
        W, = initializers
        return EmbedID(5, 3, initialW=W, ignore_label=self.ignore_label)

    def generate_inputs(self):
        low = -1 if self.ignore_label == -1 else 0
        x = np.random.randint(low, 5, self.x_shape).astype(np.int32)
        x.flat[0] = x.flat[-1] = 4
        if self.ignore_label is not None:
            x.flat[1] = self.ignore_label
        return x,

    def forward_expected(self, link, inputs):
        x, = inputs
        W = link.W.array
        y = np.zeros(x.shape + (3,), self.dtype)
        for index in np.ndindex(*x.shape):
            if x[index] != self.ignore_label:
                y[index] = W[x[index]]
        return y,


def test_default_initializer_is_unit_normal():
    W = EmbedID(300, 200).W.array
    assert W.shape == (300, 200) and W.dtype == np.float32
    assert abs(W.std() - 1.0) < 0.05 and abs(W.mean()) < 0.05


def test_arguments():
    link = EmbedID(3, 2, initialW=initializers.Constant(0.5), ignore_label=0)
    assert link.ignore_label == 0
    y = link(np.array([0, 2], np.int32))
    np.testing.assert_array_equal(y.array, [[0, 0], [0.5, 0.5]])
    W = np.arange(6, dtype=np.float32).reshape(3, 2)
    link = EmbedID.from_params(W)
    np.testing.assert_array_equal(link(np.array([1], np.int32)).array, [[2, 3]])
    with pytest.raises(ValueError, match='matrix'):
        EmbedID.from_params(W.ravel())


def test_from_params_takes_a_parameter_and_ignore_label_has_a_class_default():
    source = EmbedID(4, 3)
    link = EmbedID.from_params(source.W, ignore_label=-1)
    np.testing.assert_array_equal(link.W.array, source.W.array)
    assert link.ignore_label == -1
    restored = EmbedID.__new__(EmbedID)
    assert restored.ignore_label is None
