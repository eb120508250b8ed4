"""GradientLARS: layer-wise adaptive rate scaling of each gradient."""

import warnings

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from tests.core.optimizer_hooks import _hook_checks as checks

import catena
from catena.optimizer_hooks import GradientLARS

# The kit's ``w`` has a norm above THRESHOLD, its small ``b`` one below.
THRESHOLD = 0.5


def expected(w, g, threshold=THRESHOLD, weight_decay=0.0, eps=1e-9):
    w, g = numpy.asarray(w, numpy.float64), numpy.asarray(g, numpy.float64)
    w_norm, g_norm = numpy.linalg.norm(w), numpy.linalg.norm(g)
    rate = w_norm / (eps + g_norm + weight_decay * w_norm) if w_norm > threshold else 1.0
    return rate * (g + weight_decay * w)


class TestGradientLARS(checks.ParamHookChecks):
    hook_class = GradientLARS
    args = (THRESHOLD, 0.1)
    attributes = {'threshold': THRESHOLD, 'weight_decay': 0.1, 'eps': 1e-9}
    direct_w = [1.2, -1.6, 0.0]
    direct_g = [0.3, 0.1, -0.2]
    bad_arguments = [
        ({'threshold': -1.0}, ValueError, 'threshold must be at least 0'),
        ({'weight_decay': -0.1}, ValueError, 'weight_decay must be at least 0'),
        ({'eps': -1e-9}, ValueError, 'eps must be at least 0'),
        ({'eps': None}, TypeError, 'eps must be a real number, got NoneType'),
    ]

    def expected(self, w, g):
        return expected(w, g, weight_decay=0.1)


def test_defaults():
    hook = GradientLARS()
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


def test_through_the_optimizer_without_weight_decay(kit, dtype):
    s = kit.step(GradientLARS(THRESHOLD), dtype)
    for name in s.seen:
        assert_allclose(s.seen[name], expected(s.before[name], s.grads[name]), **kit.tol(dtype))
    assert not numpy.allclose(s.seen['/w'], s.grads['/w'])
