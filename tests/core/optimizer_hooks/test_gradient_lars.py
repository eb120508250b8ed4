"""GradientLARS: layer-wise adaptive rate scaling of each gradient."""

import warnings

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import catena
from catena.optimizer_hooks import GradientLARS

# The kit's ``w`` has a norm above THRESHOLD, its small ``b`` one below.
THRESHOLD = 0.5


def expected(w, g, threshold=THRESHOLD, weight_decay=0.0, eps=1e-9):
    w, g = numpy.asarray(w, numpy.float64), numpy.asarray(g, numpy.float64)
    w_norm, g_norm = numpy.linalg.norm(w), numpy.linalg.norm(g)
    rate = w_norm / (eps + g_norm + weight_decay * w_norm) if w_norm > threshold else 1.0
    return rate * (g + weight_decay * w)


def test_attributes_and_defaults():
    hook = GradientLARS()
    assert (hook.name, hook.timing, hook.call_for_each_param) == ('GradientLARS', 'pre', True)
    assert (hook.threshold, hook.weight_decay, hook.eps) == (1e-2, 0.0, 1e-9)


def test_the_kit_exercises_both_branches(kit):
    model = kit.Model(numpy.float32)
    assert numpy.linalg.norm(model.w.array) > THRESHOLD > numpy.linalg.norm(model.b.array)


@pytest.mark.parametrize('weight_decay', [0.0, 0.1])
@pytest.mark.parametrize('norm', [2.0, 0.1])
def test_direct_call_rescales_in_place(kit, dtype, weight_decay, norm):
    w = numpy.array([0.6, -0.8, 0.0]) * norm
    g0 = numpy.array([0.3, 0.1, -0.2], dtype=dtype)
    param = catena.Parameter(w.astype(dtype))
    grad = g0.copy()
    param.grad = grad
    GradientLARS(THRESHOLD, weight_decay)(None, param)
    assert param.grad is grad and grad.dtype == dtype
    assert_allclose(grad, expected(w.astype(dtype), g0, weight_decay=weight_decay),
                    **kit.tol(dtype))


def test_a_zero_float16_gradient_stays_zero():
    param = catena.Parameter(numpy.full(4, 3.0, dtype=numpy.float16))
    param.grad = numpy.zeros(4, dtype=numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        GradientLARS()(None, param)
    assert_array_equal(param.grad, 0)


def test_parameters_without_array_or_gradient_are_left_alone():
    GradientLARS()(None, catena.Parameter())
    param = catena.Parameter(numpy.ones(2, dtype=numpy.float32))
    GradientLARS()(None, param)
    assert param.grad is None


@pytest.mark.parametrize('weight_decay', [0.0, 0.1])
def test_through_the_optimizer(kit, dtype, weight_decay):
    s = kit.step(GradientLARS(THRESHOLD, weight_decay), dtype)
    for name in s.seen:
        want = expected(s.before[name], s.grads[name], weight_decay=weight_decay)
        assert_allclose(s.seen[name], want, **kit.tol(dtype))
    assert not numpy.allclose(s.seen['/w'], s.grads['/w'])


def test_through_one_update_rule(kit, dtype):
    s = kit.step(GradientLARS(THRESHOLD, 0.1), dtype, on='rule')
    assert_allclose(s.seen['/w'], expected(s.before['/w'], s.grads['/w'], weight_decay=0.1),
                    **kit.tol(dtype))
    assert_array_equal(s.seen['/b'], s.grads['/b'])


@pytest.mark.parametrize('on', ['optimizer', 'rule'])
def test_post_timing_acts_after_the_update(kit, dtype, on):
    s = kit.step(GradientLARS(THRESHOLD, 0.1), dtype, on=on, timing='post')
    assert_array_equal(s.seen['/w'], s.grads['/w'])
    assert_allclose(s.after_grads['/w'], expected(s.after['/w'], s.grads['/w'], weight_decay=0.1),
                    **kit.tol(dtype))


def test_static_loss_scale_gives_the_unscaled_result(kit, dtype):
    plain = kit.step(GradientLARS(THRESHOLD, 0.1), dtype)
    scaled = kit.step(GradientLARS(THRESHOLD, 0.1), dtype, loss_scale=8.0)
    for name in plain.seen:
        assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))


def test_names_duplicates_and_removal(kit):
    model = kit.Model(numpy.float32)
    optimizer = kit.SGD().setup(model)
    optimizer.add_hook(GradientLARS(THRESHOLD))
    with pytest.raises(KeyError, match='GradientLARS'):
        optimizer.add_hook(GradientLARS())
    optimizer.remove_hook('GradientLARS')
    grads = kit.grads_for(model)
    optimizer.update(kit.lossfun(model, grads))
    assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])


@pytest.mark.parametrize('kwargs, error, match', [
    ({'threshold': -1.0}, ValueError, 'threshold must be at least 0'),
    ({'weight_decay': -0.1}, ValueError, 'weight_decay must be at least 0'),
    ({'eps': -1e-9}, ValueError, 'eps must be at least 0'),
    ({'eps': None}, TypeError, 'eps must be a real number, got NoneType'),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        GradientLARS(**kwargs)
