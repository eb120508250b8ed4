"""The shortcuts of the engine's common path keep the general behaviour.

FunctionNode.apply takes arrays without wrapping them, skips a class's light
type check when its quick test accepts the inputs, and reads the
configuration through ``catena.configuration.flags``; the elementwise nodes
skip generic helpers for NumPy arrays. Each test compares the shortcut with
what the general path does.
"""

import threading
from unittest import mock

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import Variable, configuration
from catena.functions.activation.tanh import Tanh
from catena.functions.math.basic_math import Add, Mul
from catena.utils import type_check


def f32(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


class TestConfigurationFlags:

    def test_flags_follow_using_config(self):
        assert configuration.flags.enable_backprop is True
        with catena.no_backprop_mode():
            assert configuration.flags.enable_backprop is False
            with catena.force_backprop_mode():
                assert configuration.flags.enable_backprop is True
            assert configuration.flags.enable_backprop is False
        assert configuration.flags.enable_backprop is True

    def test_flags_follow_the_global_value(self):
        seen = []

        def read():  # a new thread has no thread-local values
            seen.append((configuration.flags.debug, catena.config.debug))

        old = catena.global_config.debug
        try:
            catena.global_config.debug = True
            assert configuration.flags.debug is catena.config.debug
            thread = threading.Thread(target=read)
            thread.start()
            thread.join()
        finally:
            catena.global_config.debug = old
        assert seen == [(True, True)]
        assert configuration.flags.debug is catena.config.debug

    def test_flags_follow_setattr_and_delattr(self):
        seen = []

        def run():  # in a new thread, so that no local value of this one changes
            catena.config.type_check = False
            seen.append(configuration.flags.type_check)
            del catena.config.type_check
            seen.append(configuration.flags.type_check)

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        assert seen == [False, catena.global_config.type_check]

    def test_flags_are_per_thread(self):
        seen = {}

        def other():
            seen['before'] = configuration.flags.enable_backprop
            with catena.no_backprop_mode():
                seen['inside'] = configuration.flags.enable_backprop
                barrier.wait()
                barrier.wait()

        barrier = threading.Barrier(2)
        thread = threading.Thread(target=other)
        thread.start()
        barrier.wait()
        assert configuration.flags.enable_backprop is True  # the other thread's value
        barrier.wait()
        thread.join()
        assert seen == {'before': True, 'inside': False}

    def test_graph_not_recorded_under_no_backprop_mode(self):
        x = Variable(f32(3))
        with catena.no_backprop_mode():
            y = F.tanh(x * f32(3, seed=1) + f32(3, seed=2))
        assert y.creator is None and y.requires_grad

    def test_type_check_false_skips_the_check(self):
        x = Variable(f32(3))
        with catena.using_config('type_check', False):
            y = Add().apply((x, np.ones(3, np.float64)))[0]  # the check would refuse it
        assert y.dtype == np.float64


class TestQuickTypeTest:

    def test_a_failing_check_still_explains(self):
        with pytest.raises(type_check.InvalidType):
            Add().apply((f32(3), np.ones(3, np.float64)))
        with pytest.raises(type_check.InvalidType):
            Mul().apply((np.ones(3, np.int32), np.ones(3, np.int32)))
        with pytest.raises(type_check.InvalidType):
            Tanh().apply((np.ones(3, np.int32),))

    def test_an_instance_check_is_called(self):
        node = Add()
        node.check_type_forward = mock.MagicMock()
        node.apply((f32(3), f32(3)))
        assert node.check_type_forward.call_count == 1

    def test_an_instance_check_is_called_on_a_node_without_one(self):
        from catena.functions.activation.tanh import TanhGrad

        node = TanhGrad()
        calls = []
        node.check_type_forward = lambda in_types: calls.append(len(in_types))
        node.apply((f32(3), f32(3)))
        assert calls == [2]

    def test_a_subclass_check_is_called(self):
        calls = []

        class CheckedMul(Mul):
            def check_type_forward(self, in_types):
                calls.append(len(in_types))
                type_check.expect(in_types[0].shape == (3,))

        CheckedMul().apply((f32(3), f32(3)))
        assert calls == [2]
        assert CheckedMul._accepts_types is None
        with pytest.raises(type_check.InvalidType):
            CheckedMul().apply((f32(2), f32(2)))

    def test_a_subclass_that_keeps_the_check_keeps_the_quick_test(self):
        class MyAdd(Add):
            pass

        assert MyAdd._accepts_types is not None
        with pytest.raises(type_check.InvalidType):
            MyAdd().apply((f32(3), np.ones(3, np.float64)))

    def test_broadcasting_takes_the_full_check(self):
        y = Add().apply((f32(2, 3), f32(3)))[0]
        np.testing.assert_allclose(y.array, f32(2, 3) + f32(3))


class TestArrayInputs:

    def test_an_array_input_gets_a_constant_node(self):
        x = Variable(f32(3))
        a = f32(3, seed=1)
        y = Mul().apply((x, a))[0]
        node = y.creator
        assert len(node.inputs) == 2
        constant = node.inputs[1]
        assert constant.requires_grad is False and constant.creator is None
        assert constant.shape == (3,) and constant.dtype == np.float32
        assert constant.data is a  # Mul retains its inputs
        assert constant.get_variable_or_none() is None  # as for a wrapper that died
        rebuilt = constant.get_variable()
        assert rebuilt.array is a and not rebuilt.requires_grad and rebuilt.node is constant
        assert node.inputs[0] is x.node
        assert y.rank == 1 and constant.rank == 0

    def test_no_node_without_a_graph(self):
        a = f32(3, seed=1)
        y = Mul().apply((Variable(f32(3)), a))[0]
        assert y.creator is not None
        z = Mul().apply((f32(3), a))[0]  # nothing requires grad
        assert z.creator is None and not z.requires_grad

    def test_inputs_may_be_a_list_or_a_generator(self):
        x = Variable(f32(3))
        a = f32(3, seed=1)
        for inputs in ([x, a], (v for v in (x, a))):
            y = Add().apply(inputs)[0]
            np.testing.assert_allclose(y.array, x.array + a)
            assert len(y.creator.inputs) == 2

    def test_a_bad_input_is_named(self):
        with pytest.raises(TypeError, match='must be a Variable or an array'):
            Add().apply((f32(3), 'a'))

    def test_a_parameter_input_is_used_as_it_is(self):
        p = catena.Parameter(f32(3))
        y = F.tanh(p)
        assert y.creator.inputs[0] is p.node


class TestElementwiseGradients:

    def chain(self, x, a, m):
        h = x
        for _ in range(3):
            h = F.tanh(h * m + a)
        return F.sum(h)

    def test_gradient_of_the_chain(self):
        x = Variable(f32(4, 3).astype(np.float64))
        a = f32(4, 3, seed=1).astype(np.float64)
        m = f32(4, 3, seed=2).astype(np.float64)
        catena.gradient_check.check_backward(
            lambda x: self.chain(x, a, m), x.array, None, dtype=np.float64)

    def test_constant_and_variable_operands_agree(self):
        a = f32(4, 3, seed=1)
        m = f32(4, 3, seed=2)
        x1 = Variable(f32(4, 3))
        x2 = Variable(f32(4, 3))
        self.chain(x1, a, m).backward()
        self.chain(x2, Variable(a, requires_grad=False),
                   Variable(m, requires_grad=False)).backward()
        np.testing.assert_allclose(x1.grad, x2.grad, rtol=1e-6)

    def test_gradient_of_the_constant_factor_when_it_requires_grad(self):
        x = Variable(f32(3))
        m = Variable(f32(3, seed=1))
        F.sum(x * m).backward()
        np.testing.assert_allclose(x.grad, m.array)
        np.testing.assert_allclose(m.grad, x.array)

    def test_double_backprop_through_mul_by_a_constant(self):
        x = Variable(f32(3))
        m = f32(3, seed=1)
        y = F.sum(F.tanh(x * m))
        gx, = catena.grad([y], [x], enable_double_backprop=True)
        assert gx.creator is not None
        ggx, = catena.grad([F.sum(gx * gx)], [x])
        # d/dx sum((m (1 - tanh(mx)^2))^2)
        t = np.tanh(m * x.array)
        expected = 2 * (m * (1 - t * t)) * m * (-2 * t) * (1 - t * t) * m
        np.testing.assert_allclose(ggx.array, expected, rtol=1e-4, atol=1e-6)

    def test_mul_retains_inputs_for_hooks(self):
        x = Variable(f32(3))
        m = f32(3, seed=1)
        y = x * m
        node = y.creator
        retained = node.get_retained_inputs()
        assert retained[0] is x
        np.testing.assert_array_equal(retained[1].array, m)

    def test_zero_dimensional_results_are_arrays(self):
        x = Variable(np.array(0.5, np.float32))
        one = np.array(1, np.float32)
        for y in (x + one, x * one, F.tanh(x), Add().apply((x, x))[0]):
            assert isinstance(y.array, np.ndarray) and y.shape == ()
