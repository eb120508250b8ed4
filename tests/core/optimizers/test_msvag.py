"""MSVAG: M-SVAG of Balles and Hennig with decoupled weight decay.

The formula tests use beta = 0.5 and gradients on a grid of eighths, so that
the first step (where M-SVAG divides by 1 - rho = 1e-4) is computed exactly
in every dtype and the comparison with float64 stays meaningful.
"""

from __future__ import annotations

import warnings

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
from catena import optimizers


def grid_draw(rng, shape):
    return rng.integers(-16, 17, shape) / 8


def reference(param, grads, lr, beta, eta, weight_decay_rate):
    mean, square = numpy.zeros_like(param), numpy.zeros_like(param)
    for t, grad in enumerate(grads, start=1):
        mean = beta * mean + (1 - beta) * grad
        square = beta * square + (1 - beta) * grad ** 2
        mean_hat = mean / (1 - beta ** t)
        square_hat = square / (1 - beta ** t)
        rho = min((1 - beta) * (1 + beta ** t) / ((1 + beta) * (1 - beta ** t)), 0.9999)
        variance = (square_hat - mean_hat ** 2) / (1 - rho)
        denominator = mean_hat ** 2 + rho * variance
        safe = numpy.where(denominator == 0, 1, denominator)
        factor = numpy.where(denominator == 0, 0, numpy.clip(mean_hat ** 2 / safe, 0, 1))
        param = param - eta * (lr * factor * mean_hat + weight_decay_rate * param)
        yield param, {'m': mean, 'v': square}


class TestMSVAG(checks.OptimizerChecks):
    optimizer = optimizers.MSVAG
    rule = optimizers.MSVAGRule
    defaults = (('lr', 0.1), ('beta', 0.9), ('eta', 1.0), ('weight_decay_rate', 0))
    hyper = {'lr': 0.1, 'beta': 0.5, 'eta': 0.5, 'weight_decay_rate': 0.01}
    own_hyper = (('lr', 0.02), ('beta', 0.25), ('eta', 1.0), ('weight_decay_rate', 0.1))
    fit_hyper = {'lr': 0.1}
    state_names = ('m', 'v')
    draw = staticmethod(grid_draw)
    reference = staticmethod(reference)


def test_first_step_with_the_defaults_is_plain_sgd():
    # At t = 1 the variance weight rho is 1, capped at 0.9999; the variance
    # estimate is 0, so the factor is 1 and the step is lr * grad.
    rng = numpy.random.default_rng(0)
    start, grad = rng.standard_normal(5), rng.standard_normal(5)
    param = catena.Variable(start.copy(), grad=grad.copy())
    optimizers.MSVAGRule().update(param)
    numpy.testing.assert_allclose(param.array, start - 0.1 * grad, rtol=1e-9)


def test_a_gradient_that_was_always_zero_gives_no_step_and_no_warning():
    param = catena.Variable(numpy.array([1.0, 2.0], numpy.float32))
    rule = optimizers.MSVAGRule(lr=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for _ in range(3):
            param.grad = numpy.array([0.0, 1.0], numpy.float32)
            rule.update(param)
    assert param.array[0] == 1.0
    assert param.array[1] < 2.0
    assert numpy.isfinite(param.array).all()


def test_noisy_gradients_shrink_the_step():
    # Gradients averaging 1: constant, or alternating 11 and -9 (variance 100).
    steady = catena.Variable(numpy.zeros(1))
    noisy = catena.Variable(numpy.zeros(1))
    steady_rule, noisy_rule = optimizers.MSVAGRule(), optimizers.MSVAGRule()
    for t in range(40):
        if t == 10:
            steady_start, noisy_start = steady.array[0], noisy.array[0]
        steady.grad = numpy.ones(1)
        noisy.grad = numpy.array([11.0 if t % 2 == 0 else -9.0])
        steady_rule.update(steady)
        noisy_rule.update(noisy)
    steady_moved = steady_start - steady.array[0]
    noisy_moved = noisy_start - noisy.array[0]
    numpy.testing.assert_allclose(steady_moved, 30 * 0.1)
    assert 0 < noisy_moved < 0.5 * steady_moved


def test_beta_outside_zero_one_is_rejected():
    param = catena.Variable(numpy.ones(2), grad=numpy.ones(2))
    rule = optimizers.MSVAGRule(beta=1.0)
    with pytest.raises(ValueError, match='beta must be in'):
        rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(2))
