"""GradientHardClipping: every gradient element clipped to [lower, upper]."""

import warnings

import numpy
from numpy.testing import assert_array_equal
from tests.core.optimizer_hooks import _hook_checks as checks

import catena
from catena.optimizer_hooks import GradientHardClipping

LOWER, UPPER = -0.3, 0.5


class TestGradientHardClipping(checks.ParamHookChecks):
    hook_class = GradientHardClipping
    args = (LOWER, UPPER)
    attributes = {'lower_bound': LOWER, 'upper_bound': UPPER}
    direct_w = [0.0, 0.0, 0.0, 0.0]
    direct_g = [-1.0, -0.25, 0.4, 2.0]
    bad_arguments = [
        ({'lower_bound': 1.0, 'upper_bound': -1.0}, ValueError,
         'lower_bound must not exceed upper_bound'),
        ({'lower_bound': None, 'upper_bound': 1.0}, TypeError,
         'lower_bound must be a real number, got NoneType'),
        ({'lower_bound': -1.0, 'upper_bound': '1'}, TypeError,
         'upper_bound must be a real number, got str'),
        ({'lower_bound': float('nan'), 'upper_bound': 1.0}, ValueError, 'lower_bound'),
    ]

    def expected(self, w, g):
        return numpy.clip(numpy.asarray(g, numpy.float64), LOWER, UPPER)


def test_the_kit_gradients_reach_both_bounds(kit):
    grads = kit.grads_for(kit.Model(numpy.float64))
    assert (grads['/w'] < LOWER).any() and (grads['/w'] > UPPER).any()


def test_bounds_beyond_float16_range_are_infinite_silently():
    param = catena.Parameter(numpy.zeros(3, dtype=numpy.float16))
    param.grad = numpy.array([-6e4, 1.0, 6e4], dtype=numpy.float16)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        GradientHardClipping(-1e6, 1e6)(None, param)
    assert_array_equal(param.grad, numpy.array([-6e4, 1.0, 6e4], dtype=numpy.float16))


def test_equal_bounds_are_allowed(kit):
    s = kit.step(GradientHardClipping(0.1, 0.1), numpy.float64)
    assert_array_equal(s.seen['/w'], numpy.full((3, 4), 0.1))
