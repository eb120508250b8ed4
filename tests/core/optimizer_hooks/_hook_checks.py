"""The checks every per-parameter optimizer hook shares.

A test module subclasses :class:`ParamHookChecks` as ``Test<Hook>``, sets the
hook class and its arguments, and writes ``expected(w, g)``: the gradient the
hook should leave, in float64, for the parameter ``w`` and its gradient ``g``.
The ``kit`` and ``dtype`` fixtures come from this folder's conftest.py.
"""

from __future__ import annotations

from typing import Any

import numpy
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import catena


class ParamHookChecks:
    """The checks of one hook called as ``hook(rule, param)``, run for each ``Test*`` subclass.

    Attributes:
        hook_class: The hook.
        args: Its constructor arguments.
        attributes: The attribute values those arguments give.
        direct_w: A parameter array for the direct call.
        direct_g: Its gradient.
        bad_arguments: ``(kwargs, error, match)`` for constructor calls that fail.
    """

    hook_class: type
    args: tuple[Any, ...]
    attributes: dict[str, Any]
    direct_w: list[float]
    direct_g: list[float]
    bad_arguments: list[tuple[dict[str, Any], type[Exception], str]]

    def expected(self, w: Any, g: Any) -> numpy.ndarray:
        raise NotImplementedError

    def make(self) -> Any:
        return self.hook_class(*self.args)

    def test_attributes(self) -> None:
        hook = self.make()
        assert (hook.name, hook.timing, hook.call_for_each_param) == (
            self.hook_class.__name__, 'pre', True)
        for name, value in self.attributes.items():
            assert getattr(hook, name) == value, name

    def test_direct_call_updates_the_gradient_in_place(self, kit: Any, dtype: Any) -> None:
        param = catena.Parameter(numpy.array(self.direct_w, dtype=dtype))
        grad = numpy.array(self.direct_g, dtype=dtype)
        param.grad = grad
        self.make()(None, param)
        assert param.grad is grad and grad.dtype == dtype
        want = self.expected(param.array, numpy.array(self.direct_g, dtype=dtype))
        assert_allclose(grad, want, **kit.tol(dtype))

    def test_parameters_without_array_or_gradient_are_left_alone(self) -> None:
        self.make()(None, catena.Parameter())
        param = catena.Parameter(numpy.ones(2, dtype=numpy.float32))
        self.make()(None, param)
        assert param.grad is None

    def test_through_the_optimizer(self, kit: Any, dtype: Any) -> None:
        s = kit.step(self.make(), dtype)
        for name in s.before:
            assert_allclose(s.seen[name], self.expected(s.before[name], s.grads[name]),
                            **kit.tol(dtype))
            assert_allclose(s.after[name],
                            s.before[name] - 0.5 * s.seen[name].astype(numpy.float64),
                            **kit.tol(dtype))

    def test_through_one_update_rule(self, kit: Any, dtype: Any) -> None:
        s = kit.step(self.make(), dtype, on='rule')
        assert_allclose(s.seen['/w'], self.expected(s.before['/w'], s.grads['/w']),
                        **kit.tol(dtype))
        assert_array_equal(s.seen['/b'], s.grads['/b'])

    @pytest.mark.parametrize('on', ['optimizer', 'rule'])
    def test_post_timing_acts_after_the_update(self, kit: Any, dtype: Any, on: str) -> None:
        s = kit.step(self.make(), dtype, on=on, timing='post')
        assert_array_equal(s.seen['/w'], s.grads['/w'])
        assert_allclose(s.after_grads['/w'], self.expected(s.after['/w'], s.grads['/w']),
                        **kit.tol(dtype))

    def test_timing_attribute_set_on_the_hook_is_used(self, kit: Any) -> None:
        hook = self.make()
        hook.timing = 'post'
        s = kit.step(hook, numpy.float64)
        assert_array_equal(s.seen['/w'], s.grads['/w'])

    def test_static_loss_scale_gives_the_unscaled_result(self, kit: Any, dtype: Any) -> None:
        plain = kit.step(self.make(), dtype)
        scaled = kit.step(self.make(), dtype, loss_scale=8.0)
        for name in plain.seen:
            assert_allclose(scaled.seen[name], plain.seen[name], **kit.tol(dtype))
            assert_allclose(scaled.after[name], plain.after[name], **kit.tol(dtype))

    def test_names_duplicates_and_removal(self, kit: Any) -> None:
        name = self.hook_class.__name__
        model = kit.Model(numpy.float32)
        optimizer = kit.SGD().setup(model)
        optimizer.add_hook(self.make())
        with pytest.raises(KeyError, match=name):
            optimizer.add_hook(self.make())
        optimizer.add_hook(self.make(), name='second')
        optimizer.remove_hook(name)
        optimizer.remove_hook('second')
        with pytest.raises(KeyError, match=name):
            optimizer.remove_hook(name)
        grads = kit.grads_for(model)
        optimizer.update(kit.lossfun(model, grads))
        assert_array_equal(model.w.update_rule.seen[-1], grads['/w'])

    def test_bad_arguments(self) -> None:
        for kwargs, error, match in self.bad_arguments:
            with pytest.raises(error, match=match):
                self.hook_class(**kwargs)


PENALTY_RATE = 0.3


class PenaltyHookChecks(ParamHookChecks):
    """The checks of a hook that adds ``rate * penalty_grad(w)`` (WeightDecay, Lasso)."""

    args = (PENALTY_RATE,)
    attributes = {'rate': PENALTY_RATE}
    direct_w = [-2.0, 0.0, 1.5]
    direct_g = [0.5, -1.0, 0.25]
    bad_arguments = [
        ({'rate': -0.1}, ValueError, 'rate must be at least 0'),
        ({'rate': float('nan')}, ValueError, 'rate'),
        ({'rate': '0.1'}, TypeError, 'rate must be a real number, got str'),
        ({'rate': None}, TypeError, 'rate'),
    ]

    def penalty_grad(self, w: numpy.ndarray) -> numpy.ndarray:
        raise NotImplementedError

    def expected(self, w: Any, g: Any) -> numpy.ndarray:
        w = numpy.asarray(w, numpy.float64)
        return numpy.asarray(g, numpy.float64) + PENALTY_RATE * self.penalty_grad(w)
