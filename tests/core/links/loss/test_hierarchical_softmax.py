"""BinaryHierarchicalSoftmax: the loss against the tree's path probabilities."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L
from catena import testing
from catena.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmaxFunction

_TREE = ((0, 1), ((2, 3), 4))
# The internal nodes in pre-order: 0 = root, 1 = (0, 1), 2 = ((2, 3), 4), 3 = (2, 3).
# Each word's path as (node, +1 for left / -1 for right).
_PATHS = {
    0: [(0, 1), (1, 1)],
    1: [(0, 1), (1, -1)],
    2: [(0, -1), (2, 1), (3, 1)],
    3: [(0, -1), (2, 1), (3, -1)],
    4: [(0, -1), (2, -1)],
}
_T = np.array([0, 3, 4, 2, 3], dtype=np.int32)


def _expected_loss(x, w, t):
    return sum(np.logaddexp(0, -code * (w[node] @ x[i]))
               for i, word in enumerate(t) for node, code in _PATHS[int(word)])


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestBinaryHierarchicalSoftmax(testing.LinkTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_params(self):
        return np.random.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def create_link(self, initializers):
        link = L.BinaryHierarchicalSoftmax(3, _TREE, dtype=self.dtype)
        link.W.array[...] = initializers[0]
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),

    def forward(self, link, inputs, device):
        return link(inputs[0], device.send(_T)),

    def forward_expected(self, link, inputs):
        loss = _expected_loss(inputs[0].astype(np.float64), link.W.array.astype(np.float64), _T)
        return np.asarray(loss, dtype=self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestBinaryHierarchicalSoftmaxFunction(testing.FunctionTestCase):
    """The function node itself, with double backward."""

    def setUp(self):
        if self.dtype == np.float32:
            self.check_double_backward_options = {'atol': 1e-3, 'rtol': 1e-2}

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, (4, 3)).astype(self.dtype))

    def forward(self, inputs, device):
        x, w = inputs
        return BinaryHierarchicalSoftmaxFunction(_TREE).apply((x, device.send(_T), w))[0],

    def forward_expected(self, inputs):
        x, w = inputs
        return np.asarray(_expected_loss(x, w, _T), dtype=self.dtype),


def test_probabilities_sum_to_one_and_defaults():
    link = L.BinaryHierarchicalSoftmax(3, _TREE)
    assert link.W.shape == (4, 3) and link.W.dtype == np.float32
    assert (np.abs(link.W.array) <= 1).all()
    x = np.random.uniform(-1, 1, (1, 3)).astype(np.float32)
    with catena.no_backprop_mode():
        total = sum(np.exp(-link(x, np.array([w], np.int32)).array) for w in range(5))
    np.testing.assert_allclose(total, 1.0, rtol=1e-5)


def test_create_huffman_tree():
    create = L.BinaryHierarchicalSoftmax.create_huffman_tree
    assert create({0: 8, 1: 5, 2: 2}) == ((2, 1), 0)
    assert create({'a': 1}) == 'a'
    tree = create({0: 1, 1: 1, 2: 1, 3: 1})
    assert sorted(str(tree).replace('(', '').replace(')', '').split(', ')) == ['0', '1', '2', '3']
    # Frequent words get short paths.
    counts = {i: 2 ** i for i in range(6)}
    paths = BinaryHierarchicalSoftmaxFunction(create(counts)).paths
    link = L.BinaryHierarchicalSoftmax(2, create(counts))
    depth = (link._func.codes != 0).sum(axis=1)
    assert depth[5] == 1 and depth[0] == 5 and paths.shape == (6, 5)
    with pytest.raises(ValueError, match='empty'):
        create({})


def test_errors():
    with pytest.raises(ValueError, match='two children'):
        L.BinaryHierarchicalSoftmax(2, ((0, 1, 2), 3))
    with pytest.raises(ValueError, match='word ids'):
        L.BinaryHierarchicalSoftmax(2, ((0, 2), 3))
    with pytest.raises(ValueError, match='twice'):
        L.BinaryHierarchicalSoftmax(2, ((0, 1), 1))
    link = L.BinaryHierarchicalSoftmax(2, _TREE)
    with pytest.raises(ValueError, match='word ids'):
        link(np.zeros((1, 2), np.float32), np.array([5], np.int32))
    with pytest.raises(catena.utils.type_check.InvalidType, match='x'):
        link(np.zeros((1, 3), np.float32), np.array([0], np.int32))
