"""fixed_batch_normalization with parameters and statistics of different float dtypes."""

import numpy as np

import catena
import catena.functions as F
from catena import gradient_check


def _inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    beta = rng.standard_normal(3).astype(np.float64)
    mean = rng.standard_normal(3).astype(np.float16)
    var = rng.uniform(0.5, 1.5, 3).astype(np.float16)
    return x, gamma, beta, mean, var


def test_forward_matches_the_formula_in_x_dtype():
    x, gamma, beta, mean, var = _inputs()
    y = F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=2e-5)
    expected = gamma * (x - mean.astype(np.float64)) / np.sqrt(var.astype(np.float64) + 2e-5) \
        + beta
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


def test_each_gradient_comes_back_in_its_input_dtype():
    arrays = _inputs()
    variables = [catena.Variable(a) for a in arrays]
    y = F.fixed_batch_normalization(*variables)
    F.sum(y * y).backward()
    assert [v.grad.dtype for v in variables] == [a.dtype for a in arrays]


def test_gradients_of_x_gamma_and_beta_are_numerically_right():
    x, gamma, beta, mean, var = _inputs()
    gy = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)

    def f(x, gamma, beta):
        return F.fixed_batch_normalization(x, gamma, beta, mean, var)

    gradient_check.check_backward(f, (x.astype(np.float64), gamma.astype(np.float64), beta),
                                  gy.astype(np.float64), atol=1e-4, rtol=1e-4)
