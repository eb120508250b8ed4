"""Lasso: g += rate * sign(w), through the optimizer or one update rule."""

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import catena
from catena.optimizer_hooks import Lasso

RATE = 0.3


def expected(w, g, rate=RATE):
    return numpy.asarray(g, numpy.float64) + rate * numpy.sign(numpy.asarray(w, numpy.float64))


def test_attributes():
    hook = Lasso(RATE)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.rate) == (
        'Lasso', 'pre', True, RATE)


def test_direct_call_updates_the_gradient_in_place(kit, dtype):
    param = catena.Parameter(numpy.array([-2.0, 0.0, 1.5], dtype=dtype))
    grad = numpy.array([0.5, -1.0, 0.25], dtype=dtype)
    param.grad = grad
    Lasso(RATE)(None, param)
    assert param.grad is grad and grad.dtype == dtype
    assert_allclose(grad, expected(param.array, [0.5, -1.0, 0.25]), **kit.tol(dtype))


def test_parameters_without_array_or_gradient_are_left_alone():
    Lasso(RATE)(None, catena.Parameter())
    param = catena.Parameter(numpy.ones(2, dtype=numpy.float32))
    Lasso(RATE)(None, param)
    assert param.grad is None


def test_through_the_optimizer(kit, dtype):
    s = kit.step(Lasso(RATE), dtype)
    for name in s.before:
        assert_allclose(s.seen[name], expected(s.before[name], s.grads[name]), **kit.tol(dtype))
        assert_allclose(s.after[name], s.before[name] - 0.5 * s.seen[name].astype(numpy.float64),
                        **kit.tol(dtype))


def test_through_one_update_rule(kit, dtype):
    s = kit.step(Lasso(RATE), dtype, on='rule')
    assert_allclose(s.seen['/w'], expected(s.before['/w'], s.grads['/w']), **kit.tol(dtype))
    assert_array_equal(s.seen['/b'], s.grads['/b'])


@pytest.mark.parametrize('on', ['optimizer', 'rule'])
def test_post_timing_acts_after_the_update(kit, dtype, on):
    s = kit.step(Lasso(RATE), dtype, on=on, timing='post')
    assert_array_equal(s.seen['/w'], s.grads['/w'])
    assert_allclose(s.after_grads['/w'], expected(s.after['/w'], s.grads['/w']),
                    **kit.tol(dtype))


def test_timing_attribute_set_on_the_hook_is_used(kit):
    hook = Lasso(RATE)
    hook.timing = 'post'
    s = kit.step(hook, numpy.float64)
    assert_array_equal(s.seen['/w'], s.grads['/w'])


def test_static_loss_scale_gives_the_unscaled_result(kit, dtype):
    plain = kit.step(Lasso(RATE), dtype)
    scaled = kit.step(Lasso(RATE), dtype, loss_scale=8.0)
    for name in plain.seen:
        assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))
        assert_allclose(scaled.after[name], plain.after[name], **kit.tol(dtype))


def test_names_duplicates_and_removal(kit):
    model = kit.Model(numpy.float32)
    optimizer = kit.SGD().setup(model)
    optimizer.add_hook(Lasso(RATE))
    with pytest.raises(KeyError, match='Lasso'):
        optimizer.add_hook(Lasso(0.1))
    optimizer.add_hook(Lasso(0.1), name='second_lasso')
    optimizer.remove_hook('Lasso')
    optimizer.remove_hook('second_lasso')
    with pytest.raises(KeyError, match='Lasso'):
        optimizer.remove_hook('Lasso')
    grads = kit.grads_for(model)
    optimizer.update(kit.lossfun(model, grads))
    assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])


@pytest.mark.parametrize('rate, error, match', [
    (-0.1, ValueError, 'rate must be at least 0'),
    (float('nan'), ValueError, 'rate'),
    ('0.1', TypeError, 'rate must be a real number, got str'),
    (None, TypeError, 'rate'),
])
def test_bad_rate(rate, error, match):
    with pytest.raises(error, match=match):
        Lasso(rate)


def test_zero_parameters_get_no_penalty(kit, dtype):
    s = kit.step(Lasso(RATE), dtype)
    assert s.before['/b'][0] == 0
    assert s.seen['/b'][0] == s.grads['/b'][0]
