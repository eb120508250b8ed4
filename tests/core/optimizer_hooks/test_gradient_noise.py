"""GradientNoise: g += noise_func(xp, shape, dtype, hook, rule)."""

import math
import types

import numpy
import pytest
from numpy.testing import assert_array_equal
from tests.core.optimizer_hooks import _hook_checks as checks

import catena
from catena.optimizer_hooks import GradientNoise, exponential_decay_noise

ETA = 0.2


def seeded_noise(xp, shape, dtype, hook, rule):
    """Deterministic noise: the same for the same shape, whatever the call order."""
    rng = numpy.random.default_rng(sum(shape))
    return xp.asarray(rng.normal(0, math.sqrt(hook.eta), shape)).astype(dtype)


class TestGradientNoise(checks.ParamHookChecks):
    hook_class = GradientNoise
    args = (ETA, seeded_noise)
    attributes = {'eta': ETA, 'noise_func': seeded_noise}
    direct_w = [0.0] * 5
    direct_g = list(numpy.linspace(-1, 1, 5))
    bad_arguments = [
        ({'eta': -0.1}, ValueError, 'eta must be at least 0'),
        ({'eta': '0.1'}, TypeError, 'eta must be a real number'),
        ({'eta': 0.1, 'noise_func': 3}, TypeError, 'noise_func must be callable, got int'),
    ]

    def expected(self, w, g):
        g = numpy.asarray(g)
        hook = types.SimpleNamespace(eta=ETA)
        return g.astype(numpy.float64) + seeded_noise(numpy, g.shape, g.dtype, hook, None)


def test_the_default_noise_function():
    assert GradientNoise(ETA).noise_func is exponential_decay_noise


def test_the_noise_function_gets_shape_dtype_hook_and_rule(dtype):
    calls = []

    def noise(xp, shape, dtype_, hook, rule):
        calls.append((xp, shape, dtype_, hook, rule))
        return xp.zeros(shape, dtype_)

    param = catena.Parameter(numpy.zeros(5, dtype=dtype))
    param.grad = numpy.ones(5, dtype=dtype)
    hook = GradientNoise(ETA, noise)
    rule = object()
    hook(rule, param)
    assert calls == [(numpy, (5,), numpy.dtype(dtype), hook, rule)]
    hook(rule, catena.Parameter(numpy.zeros(1, dtype)))  # no gradient: no noise drawn
    assert len(calls) == 1


# The default noise draws from the array module's global generator (xp.random), as
# Chainer's does, so these tests seed that generator (hence the NPY002 exemptions).

def test_exponential_decay_noise_has_the_annealed_deviation():
    hook = GradientNoise(0.5)
    rule = types.SimpleNamespace(t=3)
    std = math.sqrt(0.5 / 4 ** 0.55)
    numpy.random.seed(7)  # noqa: NPY002
    noise = exponential_decay_noise(numpy, (200, 1000), numpy.float32, hook, rule)
    numpy.random.seed(7)  # noqa: NPY002
    want = numpy.random.normal(0, std, (200, 1000)).astype(numpy.float32)  # noqa: NPY002
    assert noise.dtype == numpy.float32 and noise.shape == (200, 1000)
    assert_array_equal(noise, want)
    assert noise.std() == pytest.approx(std, rel=0.01)
    assert abs(noise.mean()) < 0.01 * std


def test_default_noise_through_the_optimizer_is_reproducible(kit, dtype):
    numpy.random.seed(3)  # noqa: NPY002
    first = kit.step(GradientNoise(ETA), dtype)
    numpy.random.seed(3)  # noqa: NPY002
    second = kit.step(GradientNoise(ETA), dtype)
    for name in first.seen:
        assert_array_equal(first.seen[name], second.seen[name])
        assert not numpy.array_equal(first.seen[name], first.grads[name])


def test_the_rule_is_passed_to_the_noise_function(kit):
    rules = []

    def noise(xp, shape, dtype, hook, rule):
        rules.append(rule)
        return xp.zeros(shape, dtype)

    s = kit.step(GradientNoise(ETA, noise), numpy.float32)
    # Parameters are visited in name order, as in Chainer.
    assert rules == [s.model.b.update_rule, s.model.w.update_rule]
