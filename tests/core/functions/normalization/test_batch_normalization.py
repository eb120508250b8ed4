"""batch_normalization and fixed_batch_normalization."""

# ruff: noqa: NPY002

import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

# (x shape, axis argument, gamma shape); None: Chainer's default axes.
CASES = [
    ((5, 3), None, (3,)),                 # after a linear layer
    ((2, 3, 4, 2), None, (3,)),           # after a convolution
    ((3, 2, 3), None, (2, 3)),            # gamma with two channel axes
    ((3, 4, 2, 2), (0, 2, 3), (4,)),
    ((3, 4, 2), (0, 1), (2,)),            # channels last
    ((3, 4, 2), 1, (3, 2)),               # kept axes not adjacent
    ((2, 3, 4), (-3, -1), (3,)),          # negative axes
    ((4,), None, ()),                     # a 0-d gamma
]


def _reduced_axes(x_ndim, axis, gamma_ndim):
    if axis is None:
        return (0,) + tuple(range(gamma_ndim + 1, x_ndim))
    axis = (axis,) if isinstance(axis, int) else axis
    return tuple(a % x_ndim for a in axis)


def _expand(v, x_ndim, reduced):
    """Gives a channel-shaped array singleton dimensions at the reduced axes."""
    shape = list(v.shape)
    for a in reduced:
        shape.insert(a, 1)
    return v.reshape(shape)


def _reference(x, gamma, beta, mean, var, eps, reduced):
    e = lambda v: _expand(v.astype(np.float64), x.ndim, reduced)
    return e(gamma) * (x.astype(np.float64) - e(mean)) / np.sqrt(e(var) + eps) + e(beta)


def _tolerances(case, dtype, param_dtype):
    if np.float16 in (dtype, param_dtype):
        case.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
        case.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        case.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
    elif np.float32 in (dtype, param_dtype):
        case.check_backward_options = {'atol': 1e-3, 'rtol': 1e-2}
        case.check_double_backward_options = {'atol': 1e-2, 'rtol': 1e-2}


@testing.parameterize(*(
    testing.product({'case': CASES, 'dtype': [np.float32, np.float64], 'eps': [2e-5]})
    + testing.product({'case': CASES[1:3], 'dtype': [np.float64], 'eps': [0.5]})
    + testing.product({'case': CASES[:4], 'dtype': [np.float16], 'eps': [2e-5]})
))
class TestBatchNormalization(testing.FunctionTestCase):

    def before_test(self, test_name):
        _tolerances(self, self.dtype, self.dtype)

    def generate_inputs(self):
        x_shape, _, gamma_shape = self.case
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, gamma_shape).astype(self.dtype)
        beta = np.random.uniform(-1, 1, gamma_shape).astype(self.dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return F.batch_normalization(x, gamma, beta, eps=self.eps, axis=self.case[1]),

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        reduced = _reduced_axes(x.ndim, self.case[1], gamma.ndim)
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=reduced)
        var = x64.var(axis=reduced)
        return _reference(x, gamma, beta, mean, var, self.eps, reduced).astype(self.dtype),


@testing.parameterize(*[
    {'dtype': dtype, 'param_dtype': param_dtype}
    for dtype in (np.float16, np.float32, np.float64)
    for param_dtype in (np.float16, np.float32, np.float64) if dtype != param_dtype
])
class TestBatchNormalizationMixedPrecision(testing.FunctionTestCase):
    """x and (gamma, beta) of different dtypes: the output keeps x's dtype."""

    def before_test(self, test_name):
        _tolerances(self, self.dtype, self.param_dtype)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (4, 3, 2)).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, (3,)).astype(self.param_dtype)
        beta = np.random.uniform(-1, 1, (3,)).astype(self.param_dtype)
        return x, gamma, beta

    def forward(self, inputs, device):
        return F.batch_normalization(*inputs),

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        x64 = x.astype(np.float64)
        mean, var = x64.mean(axis=(0, 2)), x64.var(axis=(0, 2))
        return _reference(x, gamma, beta, mean, var, 2e-5, (0, 2)).astype(self.dtype),


@testing.parameterize(*(
    testing.product({'case': CASES, 'dtype': [np.float64]})
    + testing.product({'case': CASES[:3], 'dtype': [np.float16, np.float32]})
    + [{'case': CASES[1], 'dtype': np.float16, 'param_dtype': np.float32}]
))
class TestFixedBatchNormalization(testing.FunctionTestCase):

    param_dtype = None
    eps = 2e-5

    def before_test(self, test_name):
        _tolerances(self, self.dtype, self.param_dtype or self.dtype)

    def generate_inputs(self):
        x_shape, _, gamma_shape = self.case
        param_dtype = self.param_dtype or self.dtype
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, gamma_shape).astype(param_dtype)
        beta = np.random.uniform(-1, 1, gamma_shape).astype(param_dtype)
        mean = np.random.uniform(-0.5, 0.5, gamma_shape).astype(param_dtype)
        var = np.random.uniform(0.5, 1.5, gamma_shape).astype(param_dtype)
        return x, gamma, beta, mean, var

    def forward(self, inputs, device):
        return F.fixed_batch_normalization(*inputs, eps=self.eps, axis=self.case[1]),

    def forward_expected(self, inputs):
        x, gamma, beta, mean, var = inputs
        reduced = _reduced_axes(x.ndim, self.case[1], gamma.ndim)
        return _reference(x, gamma, beta, mean, var, self.eps, reduced).astype(self.dtype),


# ------------------------------------------------------------------ running statistics

@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('decay', [0.9, 0.5])
def test_running_statistics_are_updated_in_place(dtype, decay):
    x = np.random.uniform(-1, 1, (6, 3, 4)).astype(dtype)
    gamma, beta = np.ones(3, dtype), np.zeros(3, dtype)
    running_mean = np.random.uniform(-1, 1, 3).astype(dtype)
    running_var = np.random.uniform(0.5, 1.5, 3).astype(dtype)
    mean0, var0 = running_mean.copy(), running_var.copy()
    ids = id(running_mean), id(running_var)
    F.batch_normalization(x, gamma, beta, running_mean=running_mean, running_var=running_var,
                          decay=decay)
    x64 = x.astype(np.float64)
    m = 6 * 4
    expected_mean = decay * mean0 + (1 - decay) * x64.mean(axis=(0, 2))
    # Unbiased: m / (m - 1) times the batch variance.
    expected_var = decay * var0 + (1 - decay) * x64.var(axis=(0, 2)) * m / (m - 1)
    assert (id(running_mean), id(running_var)) == ids
    tol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(running_mean, expected_mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(running_var, expected_var, rtol=tol, atol=tol)


def test_running_statistics_with_axis_and_repeated_calls():
    x = np.random.uniform(-1, 1, (2, 5, 3)).astype(np.float64)
    running_mean, running_var = np.zeros(3), np.ones(3)
    expected_mean, expected_var = np.zeros(3), np.ones(3)
    for step in range(3):
        batch = x + step
        F.batch_normalization(batch, np.ones(3), np.zeros(3), running_mean=running_mean,
                              running_var=running_var, axis=(0, 1))
        expected_mean = 0.9 * expected_mean + 0.1 * batch.mean(axis=(0, 1))
        expected_var = 0.9 * expected_var + 0.1 * batch.var(axis=(0, 1), ddof=1)
    np.testing.assert_allclose(running_mean, expected_mean)
    np.testing.assert_allclose(running_var, expected_var)


def test_running_statistics_on_fake_device():
    device = catena.get_device('@fake')
    x = device.send_array(np.random.uniform(-1, 1, (4, 2)).astype(np.float32))
    running_mean = device.send_array(np.zeros(2, np.float32))
    running_var = device.send_array(np.ones(2, np.float32))
    gamma = device.send_array(np.ones(2, np.float32))
    beta = device.send_array(np.zeros(2, np.float32))
    y = F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                              running_var=running_var)
    assert type(y.array) is type(x)
    host = device.to_numpy(x).astype(np.float64)
    np.testing.assert_allclose(device.to_numpy(running_mean), 0.1 * host.mean(axis=0),
                               rtol=1e-6)
    np.testing.assert_allclose(device.to_numpy(running_var),
                               0.9 + 0.1 * host.var(axis=0, ddof=1), rtol=1e-6)


def test_train_then_test_mode_uses_the_running_statistics():
    x = np.random.uniform(-1, 1, (50, 3)).astype(np.float64) * 2 + 1
    gamma, beta = np.random.uniform(0.5, 1.5, 3), np.random.uniform(-1, 1, 3)
    running_mean, running_var = np.zeros(3), np.zeros(3)
    F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                          running_var=running_var, decay=0.0)
    np.testing.assert_allclose(running_mean, x.mean(axis=0))
    np.testing.assert_allclose(running_var, x.var(axis=0, ddof=1))
    with catena.using_config('train', False):
        y = F.fixed_batch_normalization(x[:2], gamma, beta, running_mean, running_var)
    expected = gamma * (x[:2] - x.mean(axis=0)) / np.sqrt(x.var(axis=0, ddof=1) + 2e-5) + beta
    np.testing.assert_allclose(y.array, expected)


def test_batch_statistics_are_used_whatever_the_train_mode():
    x = np.random.uniform(-1, 1, (4, 3))
    with catena.using_config('train', False):
        y = F.batch_normalization(x, np.ones(3), np.zeros(3), eps=0)
    np.testing.assert_allclose(y.array, (x - x.mean(0)) / x.std(0))


def test_without_running_statistics_nothing_is_kept():
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    y = F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32))
    assert y.creator is None  # constants: no graph
    assert y.dtype == np.float32


def test_float16_statistics_are_computed_in_float32():
    # float16 accumulation of 4096 values near 100 would lose the variance entirely.
    x = (100 + np.random.uniform(-1, 1, (4096, 1))).astype(np.float16)
    y = F.batch_normalization(x, np.ones(1, np.float16), np.zeros(1, np.float16))
    assert y.dtype == np.float16
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean()) / np.sqrt(x64.var() + 2e-5)
    np.testing.assert_allclose(y.array.astype(np.float64), expected, atol=1e-2)


def test_gradients_against_formulas():
    x = catena.Variable(np.random.uniform(-1, 1, (5, 2, 3)))
    gamma = catena.Variable(np.random.uniform(0.5, 1.5, 2))
    beta = catena.Variable(np.random.uniform(-1, 1, 2))
    gy = np.random.uniform(-1, 1, (5, 2, 3))
    y = F.batch_normalization(x, gamma, beta)
    y.grad = gy
    y.backward()
    xv, m = x.array, 15
    mean = xv.mean(axis=(0, 2), keepdims=True)
    inv_std = 1 / np.sqrt(xv.var(axis=(0, 2), keepdims=True) + 2e-5)
    x_hat = (xv - mean) * inv_std
    gbeta = gy.sum(axis=(0, 2))
    ggamma = (gy * x_hat).sum(axis=(0, 2))
    g = gamma.array[None, :, None]
    gx = g * inv_std * (gy - (x_hat * ggamma[None, :, None] + gbeta[None, :, None]) / m)
    np.testing.assert_allclose(beta.grad, gbeta)
    np.testing.assert_allclose(gamma.grad, ggamma)
    np.testing.assert_allclose(x.grad, gx)


def test_single_sample_batch_warns():
    with pytest.warns(UserWarning, match='single element along the normalized axes'):
        F.batch_normalization(np.ones((1, 3)), np.ones(3), np.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.batch_normalization(np.ones((2, 3)), np.ones(3), np.zeros(3))


# ------------------------------------------------------------------------ bad arguments

def test_gamma_not_matching_the_channels():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == gamma\.shape\[0\]') as info:
        F.batch_normalization(x, np.ones(4, np.float32), np.zeros(4, np.float32))
    assert '3 != 4' in str(info.value)
    with pytest.raises(InvalidType, match=r'x\.shape\[1\] == gamma\.shape\[0\]'):
        F.fixed_batch_normalization(x, *(np.ones(5, np.float32),) * 4)


def test_beta_not_matching_gamma():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'gamma\.shape == beta\.shape'):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(2, np.float32))
    with pytest.raises(InvalidType, match=r'var\.shape == gamma\.shape'):
        F.fixed_batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32),
                                    np.zeros(3, np.float32), np.ones(2, np.float32))
    with pytest.raises(InvalidType, match=r'gamma\.dtype == beta\.dtype'):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float64))


def test_gamma_with_the_wrong_number_of_dimensions_for_axis():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(InvalidType, match=r'gamma\.ndim == 2'):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32), axis=0)


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.batch_normalization(np.zeros((2, 3), np.int32), np.ones(3), np.zeros(3))


@pytest.mark.parametrize('axis, error, message', [
    ((0, 3), ValueError, 'axis 3 is out of range for x.ndim == 3'),
    ((2, 0), ValueError, 'ascending order'),
    ((0, 0), ValueError, 'duplicates'),
    ('0', TypeError, 'axis must be None, an int or a tuple of ints'),
])
def test_bad_axis(axis, error, message):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(error, match=message):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32), axis=axis)


def test_running_statistics_must_come_together_and_match_gamma():
    x = np.zeros((2, 3), np.float32)
    gamma, beta = np.ones(3, np.float32), np.zeros(3, np.float32)
    with pytest.raises(ValueError, match='running_mean and running_var must be given'):
        F.batch_normalization(x, gamma, beta, running_mean=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r'running_var has shape \(2,\); expected .* \(3,\)'):
        F.batch_normalization(x, gamma, beta, running_mean=np.zeros(3, np.float32),
                              running_var=np.zeros(2, np.float32))


def test_keyword_only_options():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError):
        F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32), 1e-5)
