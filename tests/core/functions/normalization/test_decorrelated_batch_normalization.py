"""decorrelated_batch_normalization and fixed_decorrelated_batch_normalization."""

# ruff: noqa: NPY002

import numpy as np
import pytest
import scipy.linalg

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _grouped(x, groups):
    """(b, c, ...) -> (groups, c // groups, b * prod(...)) with channels in order."""
    c = x.shape[1]
    return np.moveaxis(x, 1, 0).reshape(groups, c // groups, -1)


def _ungrouped(y, shape):
    moved = (shape[1], shape[0]) + shape[2:]
    return np.moveaxis(y.reshape(moved), 0, 1)


def _zca(x, groups, eps):
    """The ZCA-whitened x and its statistics, with SciPy's matrix square root."""
    xg = _grouped(x.astype(np.float64), groups)
    mean = xg.mean(axis=2)
    xc = xg - mean[..., None]
    m = xg.shape[2]
    projections = []
    for xc_g in xc:
        cov = xc_g @ xc_g.T / m + eps * np.eye(xc_g.shape[0])
        projections.append(np.linalg.inv(np.real(scipy.linalg.sqrtm(cov))))
    projection = np.stack(projections)
    return _ungrouped(projection @ xc, x.shape), mean, projection


def _tolerances(case):
    if case.dtype == np.float16:
        case.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
        case.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
    elif case.dtype == np.float32:
        case.check_forward_options = {'atol': 1e-4, 'rtol': 1e-4}
        case.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
        case.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}


@testing.parameterize(*testing.product({
    'shape_groups': [((5, 4), 2), ((4, 6, 2), 3), ((3, 4, 2, 2), 1), ((3, 16), 16),
                     ((6, 3), 1)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestDecorrelatedBatchNormalization(testing.FunctionTestCase):

    eps = 2e-5
    skip_double_backward_test = True  # not supported, as in Chainer

    def before_test(self, test_name):
        _tolerances(self)

    def generate_inputs(self):
        shape, _ = self.shape_groups
        return np.random.uniform(-1, 1, shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.decorrelated_batch_normalization(inputs[0], groups=self.shape_groups[1],
                                                  eps=self.eps),

    def forward_expected(self, inputs):
        y, _, _ = _zca(inputs[0], self.shape_groups[1], self.eps)
        return y.astype(self.dtype),


@testing.parameterize(*testing.product({
    'shape_groups': [((5, 4), 2), ((4, 6, 2), 3), ((3, 4, 2, 2), 1)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestFixedDecorrelatedBatchNormalization(testing.FunctionTestCase):

    def before_test(self, test_name):
        _tolerances(self)

    def generate_inputs(self):
        shape, groups = self.shape_groups
        channels = shape[1] // groups
        x = np.random.uniform(-1, 1, shape).astype(self.dtype)
        mean = np.random.uniform(-1, 1, (groups, channels)).astype(self.dtype)
        projection = np.random.uniform(-1, 1, (groups, channels, channels)).astype(self.dtype)
        return x, mean, projection

    def forward(self, inputs, device):
        return F.fixed_decorrelated_batch_normalization(*inputs, groups=self.shape_groups[1]),

    def forward_expected(self, inputs):
        x, mean, projection = (a.astype(np.float64) for a in inputs)
        groups = self.shape_groups[1]
        y = projection @ (_grouped(x, groups) - mean[..., None])
        return _ungrouped(y, x.shape).astype(self.dtype),


@testing.parameterize(*testing.product({
    'shape_groups': [((5, 4), 2), ((3, 4, 2, 2), 1)],
    'dtypes': [(np.float16, np.float32), (np.float32, np.float64), (np.float64, np.float16),
               (np.float32, np.float16)],
}))
class TestFixedDecorrelatedBatchNormalizationMixedDtypes(testing.FunctionTestCase):
    """Statistics in another float dtype than x: y in x's, each gradient in its input's."""

    def before_test(self, test_name):
        x_dtype, stat_dtype = self.dtypes
        self.dtype = x_dtype
        _tolerances(self)
        if np.float16 in self.dtypes:
            self.check_backward_options = {'dtype': np.float64, 'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'dtype': np.float64, 'atol': 5e-2,
                                                  'rtol': 5e-2}

    def generate_inputs(self):
        x_dtype, stat_dtype = self.dtypes
        shape, groups = self.shape_groups
        channels = shape[1] // groups
        x = np.random.uniform(-1, 1, shape).astype(x_dtype)
        mean = np.random.uniform(-1, 1, (groups, channels)).astype(stat_dtype)
        projection = np.random.uniform(-1, 1, (groups, channels, channels)).astype(stat_dtype)
        return x, mean, projection

    def forward(self, inputs, device):
        return F.fixed_decorrelated_batch_normalization(*inputs, groups=self.shape_groups[1]),

    def forward_expected(self, inputs):
        x, mean, projection = (a.astype(np.float64) for a in inputs)
        groups = self.shape_groups[1]
        y = projection @ (_grouped(x, groups) - mean[..., None])
        return _ungrouped(y, x.shape).astype(self.dtypes[0]),


def test_fixed_gradients_have_their_inputs_dtypes():
    x = catena.Variable(np.random.uniform(-1, 1, (4, 6)).astype(np.float32))
    mean = catena.Variable(np.zeros((2, 3), np.float64))
    projection = catena.Variable(np.random.uniform(-1, 1, (2, 3, 3)).astype(np.float16))
    y = F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=2)
    assert y.dtype == np.float32
    grads = catena.grad([y], [x, mean, projection], grad_outputs=[np.ones((4, 6), np.float32)],
                        enable_double_backprop=True)
    assert [g.dtype for g in grads] == [np.float32, np.float64, np.float16]
    second = catena.grad([F.sum(g * g) for g in grads], [x, mean, projection])
    assert [g.dtype for g in second] == [np.float32, np.float64, np.float16]


def test_output_is_white():
    x = np.random.uniform(-1, 1, (50, 6)) @ np.random.uniform(-1, 1, (6, 6))
    y = F.decorrelated_batch_normalization(x, groups=2, eps=0).array
    for yg in _grouped(y, 2):
        np.testing.assert_allclose(yg @ yg.T / 50, np.eye(3), atol=1e-10)


def test_running_statistics():
    x = np.random.uniform(-1, 1, (7, 4, 3))
    running_mean = np.random.uniform(-1, 1, (2, 2))
    running_projection = np.random.uniform(-1, 1, (2, 2, 2))
    mean0, projection0 = running_mean.copy(), running_projection.copy()
    F.decorrelated_batch_normalization(x, groups=2, running_mean=running_mean,
                                       running_projection=running_projection, decay=0.8)
    _, mean, projection = _zca(x, 2, 2e-5)
    m = 7 * 3
    np.testing.assert_allclose(running_mean, 0.8 * mean0 + 0.2 * mean)
    np.testing.assert_allclose(running_projection,
                               0.8 * projection0 + 0.2 * m / (m - 1) * projection)


def test_train_then_test_mode_agree_with_decay_zero():
    x = np.random.uniform(-1, 1, (30, 4))
    running_mean, running_projection = np.zeros((1, 4)), np.zeros((1, 4, 4))
    y = F.decorrelated_batch_normalization(x, groups=1, running_mean=running_mean,
                                           running_projection=running_projection, decay=0)
    with catena.using_config('train', False):
        y_fixed = F.fixed_decorrelated_batch_normalization(
            x, running_mean, running_projection * 29 / 30, groups=1)
    np.testing.assert_allclose(y_fixed.array, y.array, atol=1e-10)


def test_double_backward_is_not_supported():
    x = catena.Variable(np.random.uniform(-1, 1, (5, 2)))
    y = F.decorrelated_batch_normalization(x, groups=1)
    gx, = catena.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match='double backprop'):
        F.sum(gx * gx).backward()


def test_groups_must_divide_the_channels():
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] % groups == 0'):
        F.decorrelated_batch_normalization(np.zeros((3, 4)), groups=3)
    with pytest.raises(TypeError, match='groups must be a positive int'):
        F.decorrelated_batch_normalization(np.zeros((3, 4)), groups=0)


def test_fixed_statistics_of_the_wrong_shape():
    x = np.zeros((3, 4))
    with pytest.raises(InvalidType, match=r'mean\.shape\[1\] == x\.shape\[1\] // groups'):
        F.fixed_decorrelated_batch_normalization(x, np.zeros((2, 3)), np.zeros((2, 2, 2)),
                                                 groups=2)
    with pytest.raises(InvalidType, match=r'projection\.ndim == 3'):
        F.fixed_decorrelated_batch_normalization(x, np.zeros((2, 2)), np.zeros((2, 2)),
                                                 groups=2)


def test_running_statistics_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r'running_projection has shape \(2, 2\)'):
        F.decorrelated_batch_normalization(np.random.uniform(size=(3, 4)), groups=2,
                                           running_projection=np.zeros((2, 2)))
