"""GradientNoise: g += noise_func(xp, shape, dtype, hook, rule)."""

import math
import types

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import catena
from catena.optimizer_hooks import GradientNoise, exponential_decay_noise

ETA = 0.2


def seeded_noise(xp, shape, dtype, hook, rule):
    """Deterministic noise: the same for the same shape, whatever the call order."""
    rng = numpy.random.default_rng(sum(shape))
    return xp.asarray(rng.normal(0, math.sqrt(hook.eta), shape)).astype(dtype)


def expected(g):
    g = numpy.asarray(g)
    return g.astype(numpy.float64) + seeded_noise(numpy, g.shape, g.dtype, types.SimpleNamespace(
        eta=ETA), None)


def test_attributes():
    hook = GradientNoise(ETA)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.eta) == (
        'GradientNoise', 'pre', True, ETA)
    assert hook.noise_func is exponential_decay_noise


def test_direct_call_adds_the_noise_in_place(kit, dtype):
    calls = []

    def noise(xp, shape, dtype_, hook, rule):
        calls.append((xp, shape, dtype_, hook, rule))
        return seeded_noise(xp, shape, dtype_, hook, rule)

    param = catena.Parameter(numpy.zeros(5, dtype=dtype))
    grad = numpy.linspace(-1, 1, 5).astype(dtype)
    param.grad = grad
    hook = GradientNoise(ETA, noise)
    rule = object()
    hook(rule, param)
    assert param.grad is grad and grad.dtype == dtype
    assert calls == [(numpy, (5,), numpy.dtype(dtype), hook, rule)]
    assert_allclose(grad, expected(numpy.linspace(-1, 1, 5).astype(dtype)), **kit.tol(dtype))
    hook(rule, catena.Parameter(numpy.zeros(1, dtype)))
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
    assert rules == [s.model.w.update_rule, s.model.b.update_rule]


def test_through_the_optimizer(kit, dtype):
    s = kit.step(GradientNoise(ETA, seeded_noise), dtype)
    for name in s.seen:
        assert_allclose(s.seen[name], expected(s.grads[name]), **kit.tol(dtype))


def test_through_one_update_rule(kit, dtype):
    s = kit.step(GradientNoise(ETA, seeded_noise), dtype, on='rule')
    assert_allclose(s.seen['/w'], expected(s.grads['/w']), **kit.tol(dtype))
    assert_array_equal(s.seen['/b'], s.grads['/b'])


@pytest.mark.parametrize('on', ['optimizer', 'rule'])
def test_post_timing_acts_after_the_update(kit, dtype, on):
    s = kit.step(GradientNoise(ETA, seeded_noise), dtype, on=on, timing='post')
    assert_array_equal(s.seen['/w'], s.grads['/w'])
    assert_allclose(s.after_grads['/w'], expected(s.grads['/w']), **kit.tol(dtype))


def test_static_loss_scale_gives_the_unscaled_result(kit, dtype):
    plain = kit.step(GradientNoise(ETA, seeded_noise), dtype)
    scaled = kit.step(GradientNoise(ETA, seeded_noise), dtype, loss_scale=8.0)
    for name in plain.seen:
        assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))


def test_names_duplicates_and_removal(kit):
    model = kit.Model(numpy.float32)
    optimizer = kit.SGD().setup(model)
    optimizer.add_hook(GradientNoise(ETA))
    with pytest.raises(KeyError, match='GradientNoise'):
        optimizer.add_hook(GradientNoise(ETA))
    optimizer.remove_hook('GradientNoise')
    grads = kit.grads_for(model)
    optimizer.update(kit.lossfun(model, grads))
    assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])


@pytest.mark.parametrize('kwargs, error, match', [
    ({'eta': -0.1}, ValueError, 'eta must be at least 0'),
    ({'eta': '0.1'}, TypeError, 'eta must be a real number'),
    ({'eta': 0.1, 'noise_func': 3}, TypeError, 'noise_func must be callable, got int'),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        GradientNoise(**kwargs)
