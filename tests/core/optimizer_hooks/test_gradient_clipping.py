"""GradientClipping: all gradients rescaled so that their joint L2 norm <= threshold."""

import warnings

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from catena.optimizer_hooks import GradientClipping


def expected(grads, threshold):
    grads = {name: numpy.asarray(g, numpy.float64) for name, g in grads.items()}
    norm = numpy.sqrt(sum(float((g ** 2).sum()) for g in grads.values()))
    rate = min(1.0, threshold / norm)
    return {name: g * rate for name, g in grads.items()}


def test_attributes():
    hook = GradientClipping(2.0)
    assert (hook.name, hook.timing, hook.call_for_each_param, hook.threshold) == (
        'GradientClipping', 'pre', False, 2.0)


@pytest.mark.parametrize('threshold', [1.0, 100.0])
def test_through_the_optimizer(kit, dtype, threshold):
    s = kit.step(GradientClipping(threshold), dtype)
    want = expected(s.grads, threshold)
    for name in s.seen:
        assert_allclose(s.seen[name], want[name], **kit.tol(dtype))
    if threshold == 1.0:  # clipped onto the sphere
        norm = numpy.sqrt(sum((g.astype(numpy.float64) ** 2).sum() for g in s.seen.values()))
        assert norm == pytest.approx(1.0, rel=2e-3)
    else:  # untouched
        for name in s.seen:
            assert_array_equal(s.seen[name], s.grads[name])


def test_float16_norm_does_not_overflow(kit):
    # 300 ** 2 > 65504: a float16 sum of squares would be infinite.
    s = kit.step(GradientClipping(10.0), numpy.float16, grad_scale=300.0)
    want = expected(s.grads, 10.0)
    for name in s.seen:
        assert numpy.isfinite(s.seen[name]).all()
        assert_allclose(s.seen[name], want[name], **kit.tol(numpy.float16))


def test_post_timing_acts_after_the_update(kit, dtype):
    s = kit.step(GradientClipping(1.0), dtype, timing='post')
    want = expected(s.grads, 1.0)
    for name in s.seen:
        assert_array_equal(s.seen[name], s.grads[name])
        assert_allclose(s.after_grads[name], want[name], **kit.tol(dtype))


@pytest.mark.parametrize('threshold', [1.0, 100.0])
def test_static_loss_scale_gives_the_unscaled_result(kit, dtype, threshold):
    plain = kit.step(GradientClipping(threshold), dtype)
    scaled = kit.step(GradientClipping(threshold), dtype, loss_scale=8.0)
    for name in plain.seen:
        assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))


def test_zero_gradients_are_left_alone(kit):
    model = kit.Model(numpy.float32)
    grads = {name: numpy.zeros_like(p.array) for name, p in model.namedparams()}
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        s = kit.step(GradientClipping(1.0), numpy.float32, grads=grads)
    for name in s.seen:
        assert_array_equal(s.seen[name], 0)


def test_needs_an_optimizer_with_a_target():
    with pytest.raises(RuntimeError, match='GradientClipping needs an optimizer'):
        GradientClipping(1.0)(object())


def test_names_duplicates_and_removal(kit):
    model = kit.Model(numpy.float32)
    optimizer = kit.SGD().setup(model)
    optimizer.add_hook(GradientClipping(1e-3))
    with pytest.raises(KeyError, match='GradientClipping'):
        optimizer.add_hook(GradientClipping(1.0))
    optimizer.remove_hook('GradientClipping')
    grads = kit.grads_for(model)
    optimizer.update(kit.lossfun(model, grads))
    assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])


@pytest.mark.parametrize('threshold, error, match', [
    (0, ValueError, 'threshold must be positive, got 0.0'),
    (-1.0, ValueError, 'threshold must be positive'),
    (float('nan'), ValueError, 'threshold'),
    ('1', TypeError, 'threshold must be a real number, got str'),
])
def test_bad_threshold(threshold, error, match):
    with pytest.raises(error, match=match):
        GradientClipping(threshold)
