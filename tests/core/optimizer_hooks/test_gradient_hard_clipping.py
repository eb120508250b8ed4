"""GradientHardClipping: every gradient element clipped to [lower, upper]."""

import warnings

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import catena
from catena.optimizer_hooks import GradientHardClipping

LOWER, UPPER = -0.3, 0.5


def expected(g, lower=LOWER, upper=UPPER):
    return numpy.clip(numpy.asarray(g, numpy.float64), lower, upper)


def test_attributes():
    hook = GradientHardClipping(LOWER, UPPER)
    assert (hook.name, hook.timing, hook.call_for_each_param) == (
        'GradientHardClipping', 'pre', True)
    assert (hook.lower_bound, hook.upper_bound) == (LOWER, UPPER)


def test_direct_call_clips_in_place(kit, dtype):
    param = catena.Parameter(numpy.zeros(4, dtype=dtype))
    grad = numpy.array([-1.0, -0.25, 0.4, 2.0], dtype=dtype)
    param.grad = grad
    GradientHardClipping(LOWER, UPPER)(None, param)
    assert param.grad is grad and grad.dtype == dtype
    assert_allclose(grad, [LOWER, -0.25, 0.4, UPPER], **kit.tol(dtype))
    GradientHardClipping(LOWER, UPPER)(None, catena.Parameter(numpy.zeros(1, dtype)))


def test_bounds_beyond_float16_range_are_infinite_silently():
    param = catena.Parameter(numpy.zeros(3, dtype=numpy.float16))
    param.grad = numpy.array([-6e4, 1.0, 6e4], dtype=numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        GradientHardClipping(-1e6, 1e6)(None, param)
    assert_array_equal(param.grad, numpy.array([-6e4, 1.0, 6e4], dtype=numpy.float16))


def test_through_the_optimizer(kit, dtype):
    s = kit.step(GradientHardClipping(LOWER, UPPER), dtype)
    for name in s.before:
        assert_allclose(s.seen[name], expected(s.grads[name]), **kit.tol(dtype))
    assert (s.grads['/w'] < LOWER).any() and (s.grads['/w'] > UPPER).any()


def test_through_one_update_rule(kit, dtype):
    s = kit.step(GradientHardClipping(LOWER, UPPER), dtype, on='rule')
    assert_allclose(s.seen['/w'], expected(s.grads['/w']), **kit.tol(dtype))
    assert_array_equal(s.seen['/b'], s.grads['/b'])


@pytest.mark.parametrize('on', ['optimizer', 'rule'])
def test_post_timing_acts_after_the_update(kit, dtype, on):
    s = kit.step(GradientHardClipping(LOWER, UPPER), dtype, on=on, timing='post')
    assert_array_equal(s.seen['/w'], s.grads['/w'])
    assert_allclose(s.after_grads['/w'], expected(s.grads['/w']), **kit.tol(dtype))


def test_static_loss_scale_gives_the_unscaled_result(kit, dtype):
    plain = kit.step(GradientHardClipping(LOWER, UPPER), dtype)
    scaled = kit.step(GradientHardClipping(LOWER, UPPER), dtype, loss_scale=8.0)
    for name in plain.seen:
        assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))


def test_names_duplicates_and_removal(kit):
    model = kit.Model(numpy.float32)
    optimizer = kit.SGD().setup(model)
    optimizer.add_hook(GradientHardClipping(LOWER, UPPER))
    with pytest.raises(KeyError, match='GradientHardClipping'):
        optimizer.add_hook(GradientHardClipping(-1, 1))
    optimizer.remove_hook('GradientHardClipping')
    grads = kit.grads_for(model)
    optimizer.update(kit.lossfun(model, grads))
    assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])


@pytest.mark.parametrize('lower, upper, error, match', [
    (1.0, -1.0, ValueError, 'lower_bound must not exceed upper_bound'),
    (None, 1.0, TypeError, 'lower_bound must be a real number, got NoneType'),
    (-1.0, '1', TypeError, 'upper_bound must be a real number, got str'),
    (float('nan'), 1.0, ValueError, 'lower_bound'),
])
def test_bad_bounds(lower, upper, error, match):
    with pytest.raises(error, match=match):
        GradientHardClipping(lower, upper)


def test_equal_bounds_are_allowed(kit):
    s = kit.step(GradientHardClipping(0.1, 0.1), numpy.float64)
    assert_array_equal(s.seen['/w'], numpy.full((3, 4), 0.1))
