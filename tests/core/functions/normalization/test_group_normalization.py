"""group_normalization."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _reference(x, groups, gamma, beta, eps):
    x64 = x.astype(np.float64)
    n, c = x.shape[:2]
    rows = x64.reshape(n, groups, -1)
    mean = rows.mean(axis=2, keepdims=True)
    var = rows.var(axis=2, keepdims=True)
    x_hat = ((rows - mean) / np.sqrt(var + eps)).reshape(x.shape)
    channel = (1, c) + (1,) * (x.ndim - 2)
    return x_hat * gamma.reshape(channel) + beta.reshape(channel)


@testing.parameterize(*(
    testing.product({
        'shape_groups': [((2, 4, 3), 2), ((3, 6), 3), ((2, 4, 2, 3), 1), ((1, 6, 2, 2), 6),
                         ((2, 6, 2), 3)],
        'dtype': [np.float16, np.float32, np.float64],
        'eps': [1e-5],
    })
    + [{'shape_groups': ((2, 4, 3), 2), 'dtype': np.float64, 'eps': 0.5}]
))
class TestGroupNormalization(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        elif self.dtype == np.float32:
            self.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        shape, _ = self.shape_groups
        x = np.random.uniform(-1, 1, shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, shape[1]).astype(self.dtype)
        beta = np.random.uniform(-1, 1, shape[1]).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return F.group_normalization(x, self.shape_groups[1], gamma, beta, eps=self.eps),

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        y = _reference(x, self.shape_groups[1], gamma, beta, self.eps)
        return y.astype(self.dtype),


@testing.parameterize(*testing.product({
    'dtypes': [(np.float16, np.float32), (np.float64, np.float32), (np.float32, np.float64),
               (np.float32, np.float16)],
}))
class TestGroupNormalizationMixedDtypes(testing.FunctionTestCase):
    """gamma and beta of another float dtype than x (mixed16 links), as in Chainer."""

    def before_test(self, test_name):
        tol = {'atol': 5e-2, 'rtol': 5e-2} if np.float16 in self.dtypes else {
            'atol': 1e-3, 'rtol': 1e-2}
        self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2} if np.float16 in \
            self.dtypes else {'atol': 1e-5, 'rtol': 1e-4}
        self.check_backward_options = tol
        self.check_double_backward_options = tol

    def generate_inputs(self):
        x_dtype, param_dtype = self.dtypes
        x = np.random.uniform(-1, 1, (2, 4, 3)).astype(x_dtype)
        gamma = np.random.uniform(0.5, 1.5, 4).astype(param_dtype)
        beta = np.random.uniform(-1, 1, 4).astype(param_dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        y = F.group_normalization(x, 2, gamma, beta)
        assert y.dtype == x.dtype
        return y,

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        return _reference(x, 2, gamma, beta, 1e-5).astype(x.dtype),


def test_mixed_dtype_gradients_keep_each_inputs_dtype():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 4, 3)).astype(np.float16))
    gamma = catena.Variable(np.ones(4, np.float32))
    beta = catena.Variable(np.zeros(4, np.float32))
    y = F.group_normalization(x, 2, gamma, beta)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert (x.grad.dtype, gamma.grad.dtype, beta.grad.dtype) == (
        np.float16, np.float32, np.float32)


def test_statistics_are_per_sample_and_group():
    x = np.random.uniform(-1, 1, (3, 4, 5)) * np.arange(1, 4)[:, None, None]
    y = F.group_normalization(x, 2, np.ones(4), np.zeros(4), eps=0).array
    rows = y.reshape(3, 2, -1)
    np.testing.assert_allclose(rows.mean(axis=2), 0, atol=1e-12)
    np.testing.assert_allclose(rows.var(axis=2), 1)


def test_groups_must_divide_the_channels():
    with pytest.raises(ValueError, match=r'number of channels, 4, is not divisible by groups, 3'):
        F.group_normalization(np.zeros((2, 4)), 3, np.ones(4), np.zeros(4))
    with pytest.raises(TypeError, match='groups must be a positive int'):
        F.group_normalization(np.zeros((2, 4)), 2.0, np.ones(4), np.zeros(4))


def test_gamma_not_matching_the_channels():
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == gamma\.shape\[0\]') as info:
        F.group_normalization(np.zeros((2, 4, 3)), 2, np.ones(6), np.zeros(6))
    assert '4 != 6' in str(info.value)
    with pytest.raises(InvalidType, match=r'gamma\.shape == beta\.shape'):
        F.group_normalization(np.zeros((2, 4, 3)), 2, np.ones(4), np.zeros(2))
    with pytest.raises(InvalidType, match=r'beta\.dtype == gamma\.dtype'):
        F.group_normalization(np.zeros((2, 4, 3)), 2, np.ones(4, np.float32), np.zeros(4))
    with pytest.raises(InvalidType, match=r'gamma\.dtype\.kind == f'):
        F.group_normalization(np.zeros((2, 4, 3)), 2, np.ones(4, np.int32),
                              np.zeros(4, np.int32))


def test_one_dimensional_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim >= 2'):
        F.group_normalization(np.zeros(4), 1, np.ones(4), np.zeros(4))
