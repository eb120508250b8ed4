"""simplified_dropconnect: masked linear layer, gradients for x, W and b, masks, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

BATCH, OUT, IN = 4, 2, 3


def _expected(x, w, b, mask, ratio):
    """y[i, j] = sum_k W[j, k] mask[i?, j, k] x[i, k] / (1 - ratio) + b[j], in float64."""
    x = x.reshape(len(x), -1).astype(np.float64)
    masked = w.astype(np.float64) * mask / (1 - ratio)
    if masked.ndim == 2:
        masked = np.broadcast_to(masked, (len(x),) + masked.shape)
    y = np.einsum('ijk,ik->ij', masked, x)
    return y if b is None else y + b


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'x_shape': [(BATCH, IN), (BATCH, 1, IN)],
    'batchwise': [True, False],
    'bias': [True, False],
    'ratio': [0.0, 0.4],
}))
class TestSimplifiedDropconnect(testing.FunctionTestCase):

    def setUp(self):
        shape = (BATCH, OUT, IN) if self.batchwise else (OUT, IN)
        self.mask = np.random.RandomState(5).rand(*shape) >= self.ratio
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        w = np.random.uniform(-1, 1, (OUT, IN)).astype(self.dtype)
        if not self.bias:
            return x, w
        return x, w, np.random.uniform(-1, 1, OUT).astype(self.dtype)

    def forward(self, inputs, device):
        return F.simplified_dropconnect(*inputs, ratio=self.ratio,
                                        mask=device.send(self.mask)),

    def forward_expected(self, inputs):
        x, w = inputs[:2]
        b = inputs[2] if self.bias else None
        return _expected(x, w, b, self.mask, self.ratio).astype(self.dtype),


@testing.parameterize(*testing.product({
    'dtypes': [(np.float16, np.float32), (np.float32, np.float64), (np.float64, np.float16),
               (np.float32, np.float16)],
    'batchwise': [True, False],
    'bias': [True, False],
}))
class TestSimplifiedDropconnectWeightOfAnotherDtype(testing.FunctionTestCase):
    """W of another float dtype than x: y and gx in x's dtype, gW in W's (as in Chainer)."""

    ratio = 0.4

    def setUp(self):
        shape = (BATCH, OUT, IN) if self.batchwise else (OUT, IN)
        self.mask = np.random.RandomState(3).rand(*shape) >= self.ratio
        if np.float16 in self.dtypes:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'dtype': np.float64, 'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'dtype': np.float64, 'atol': 1e-1,
                                                  'rtol': 1e-1}
        else:
            self.check_backward_options = {'dtype': np.float64}
            self.check_double_backward_options = {'dtype': np.float64}

    def generate_inputs(self):
        x_dtype, w_dtype = self.dtypes
        x = np.random.uniform(-1, 1, (BATCH, IN)).astype(x_dtype)
        w = np.random.uniform(-1, 1, (OUT, IN)).astype(w_dtype)
        if not self.bias:
            return x, w
        return x, w, np.random.uniform(-1, 1, OUT).astype(x_dtype)

    def forward(self, inputs, device):
        return F.simplified_dropconnect(*inputs, ratio=self.ratio,
                                        mask=device.send(self.mask)),

    def forward_expected(self, inputs):
        x, w = inputs[:2]
        b = inputs[2] if self.bias else None
        return _expected(x, w, b, self.mask, self.ratio).astype(self.dtypes[0]),


@pytest.mark.parametrize('batchwise', [True, False])
def test_gradients_of_another_weight_dtype_keep_their_inputs_dtypes(batchwise):
    x = catena.Variable(np.random.uniform(-1, 1, (BATCH, IN)).astype(np.float16))
    w = catena.Variable(np.random.uniform(-1, 1, (OUT, IN)).astype(np.float64))
    y = F.simplified_dropconnect(x, w, ratio=0.5, use_batchwise_mask=batchwise)
    assert y.dtype == np.float16
    gx, gw = catena.grad([y], [x, w], grad_outputs=[np.ones((BATCH, OUT), np.float16)],
                         enable_double_backprop=True)
    assert gx.dtype == np.float16 and gw.dtype == np.float64
    ggx, ggw = catena.grad([F.sum(gx * gx), F.sum(gw * gw)], [x, w])
    assert ggx.dtype == np.float16 and ggw.dtype == np.float64


@pytest.mark.parametrize('batchwise', [True, False])
def test_the_node_keeps_the_mask_it_applied(batchwise):
    x = catena.Variable(np.ones((BATCH, IN), np.float32))
    w = np.ones((OUT, IN), np.float32)
    shape = (BATCH, OUT, IN) if batchwise else (OUT, IN)
    y = F.simplified_dropconnect(x, w, ratio=0.5, use_batchwise_mask=batchwise)
    mask = y.creator.mask
    assert mask.shape == shape and mask.dtype == bool
    masked = np.broadcast_to(w * mask * 2, (BATCH, OUT, IN))
    np.testing.assert_allclose(y.array, masked.sum(axis=2))
    # Nothing dropped (test mode, or ratio 0): a mask of ones of the same shape.
    for kwargs in ({'train': False}, {'ratio': 0.0}):
        y = F.simplified_dropconnect(x, w, use_batchwise_mask=batchwise, **kwargs)
        assert y.creator.mask.shape == shape and y.creator.mask.all()


def test_random_masks_are_reproducible_and_batchwise_ones_differ_per_example():
    x = np.ones((3, 20), dtype=np.float32)  # identical examples
    w = np.random.uniform(-1, 1, (10, 20)).astype(np.float32)
    np.random.seed(2)
    y = F.simplified_dropconnect(x, w, ratio=0.5).array
    np.random.seed(2)
    np.testing.assert_array_equal(F.simplified_dropconnect(x, w, ratio=0.5).array, y)
    assert not np.allclose(y[0], y[1])
    shared = F.simplified_dropconnect(x, w, ratio=0.5, use_batchwise_mask=False).array
    np.testing.assert_array_equal(shared[0], shared[1])


def test_random_mask_drops_weights_at_the_ratio():
    x = np.eye(40, dtype=np.float64)  # row i of y is column i of W'
    w = np.ones((30, 40))
    y = F.simplified_dropconnect(x, w, ratio=0.25, use_batchwise_mask=False).array
    dropped = y == 0
    assert abs(dropped.mean() - 0.25) < 0.05
    np.testing.assert_allclose(y[~dropped], 1 / 0.75)


def test_not_training_is_a_plain_linear_layer():
    x = np.random.uniform(-1, 1, (BATCH, IN))
    w = np.random.uniform(-1, 1, (OUT, IN))
    b = np.random.uniform(-1, 1, OUT)
    with catena.using_config('train', False):  # only the train argument matters
        y = F.simplified_dropconnect(x, w, b, ratio=0.9)
    assert not np.allclose(y.array, x @ w.T + b)
    y = F.simplified_dropconnect(x, w, b, ratio=0.9, train=False)
    np.testing.assert_allclose(y.array, x @ w.T + b)


def test_gradients_use_the_mask_of_the_forward_pass():
    x = catena.Variable(np.random.uniform(-1, 1, (BATCH, IN)))
    w = catena.Variable(np.random.uniform(-1, 1, (OUT, IN)))
    b = catena.Variable(np.random.uniform(-1, 1, OUT))
    mask = catena.Variable(np.random.rand(BATCH, OUT, IN) >= 0.5)  # a Variable mask works
    y = F.simplified_dropconnect(x, w, b, ratio=0.5, mask=mask)
    assert type(y.creator).__name__ == 'SimplifiedDropconnect'
    gy = np.random.uniform(-1, 1, (BATCH, OUT))
    y.grad = gy
    y.backward()
    masked = w.array * mask.array * 2
    np.testing.assert_allclose(x.grad, np.einsum('ij,ijk->ik', gy, masked))
    np.testing.assert_allclose(w.grad, np.einsum('ij,ik,ijk->jk', gy, x.array, mask.array * 2))
    np.testing.assert_allclose(b.grad, gy.sum(axis=0))


@pytest.mark.parametrize('ratio', [-0.1, 1.0])
def test_ratio_outside_the_interval_is_rejected(ratio):
    with pytest.raises(ValueError, match='ratio'):
        F.simplified_dropconnect(np.ones((2, 3)), np.ones((4, 3)), ratio=ratio)


def test_mask_of_another_shape_is_rejected():
    with pytest.raises(ValueError, match='mask') as info:
        F.simplified_dropconnect(np.ones((2, 3)), np.ones((4, 3)), mask=np.ones((3, 4)))
    assert isinstance(info.value, InvalidType)  # as in Chainer


@pytest.mark.parametrize(('shapes', 'name'), [
    (((2, 3), (4, 5), None), 'W'),
    (((2, 3), (4, 3), (3,)), 'b'),
    (((3,), (4, 3), None), 'x'),
])
def test_mismatched_shapes_are_rejected(shapes, name):
    x_shape, w_shape, b_shape = shapes
    b = None if b_shape is None else np.ones(b_shape)
    with pytest.raises(InvalidType, match=name):
        F.simplified_dropconnect(np.ones(x_shape), np.ones(w_shape), b)
