"""distributions.utils: x log x with its limit at 0, as Chainer's ``_modified_xlogx``."""

# ruff: noqa: NPY002

import warnings

import numpy as np
import pytest

import catena
import catena.distributions as D
from catena import gradient_check


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(), (2, 3)])
def test_value_and_gradients(dtype, shape):
    x = np.asarray(np.random.uniform(0.1, 1, shape)).astype(dtype)
    y = D.utils._modified_xlogx(x)
    assert y.dtype == dtype and y.shape == shape
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(y.array, x64 * np.log(x64), rtol=1e-3 if dtype == np.float16
                               else 1e-6)
    gy = np.asarray(np.random.normal(size=shape)).astype(dtype)
    ggx = np.asarray(np.random.normal(size=shape)).astype(dtype)
    options = {'atol': 1e-2, 'rtol': 1e-2, 'eps': 1e-3, 'dtype': np.float64}
    gradient_check.check_backward(D.utils._modified_xlogx, x, gy, **options)
    gradient_check.check_double_backward(D.utils._modified_xlogx, x, gy, ggx, **options)


def test_zero_gives_zero_and_backward_warns():
    x = catena.Variable(np.array([0.0, 0.5]))
    y = D.utils._modified_xlogx(x)
    np.testing.assert_array_equal(y.array, [0.0, 0.5 * np.log(0.5)])
    with pytest.warns(RuntimeWarning, match='gradient at x = 0'):
        catena.functions.sum(y).backward()
    np.testing.assert_allclose(x.grad, [0.0, np.log(0.5) + 1])


def test_positive_inputs_do_not_warn():
    x = catena.Variable(np.array([0.25, 0.5]))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        catena.functions.sum(D.utils._modified_xlogx(x)).backward()
