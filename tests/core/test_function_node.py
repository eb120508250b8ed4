import numpy as np
import pytest

import catena
import catena.functions as F
from catena import FunctionNode, Variable
from catena.utils import type_check


def f32(*shape):
    return np.random.RandomState(1).uniform(-1, 1, shape).astype(np.float32)


class Square(FunctionNode):
    """x ** 2 on a matrix, with a deliberately strict type contract."""

    def check_type_forward(self, in_types):
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype == np.float32, x_type.ndim == 2)

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0],


class TestBadInput:

    def test_arrays_on_two_devices_name_both(self):
        x = Variable(f32(2, 2))
        y = Variable(f32(2, 2)).to_device('@fake')
        with pytest.raises(ValueError) as info:
            x + y
        message = str(info.value)
        assert '@numpy' in message and '@fake' in message and '_ + _' in message
        assert x.creator is None and y.creator is None
        assert x.grad is None and y.grad is None
        assert x.rank == 0 and y.rank == 0

    def test_wrong_dtype_raises_invalid_type_naming_the_argument(self):
        x = Variable(np.ones((2, 2), np.float64))
        node = Square()
        with pytest.raises(type_check.InvalidType) as info:
            node.apply((x,))
        message = str(info.value)
        assert 'Invalid operation is performed in: Square (Forward)' in message
        assert 'Expect: x.dtype == ' in message and 'float32' in message
        assert 'Actual: float64' in message
        assert node.inputs is None and node.outputs is None and x.creator is None

    def test_wrong_ndim_raises_invalid_type_naming_the_argument(self):
        x = Variable(f32(2, 2, 2))
        with pytest.raises(type_check.InvalidType) as info:
            Square().apply((x,))
        message = str(info.value)
        assert 'Expect: x.ndim == 2' in message
        assert 'Actual: 3 != 2' in message
        assert x.creator is None and x.grad is None

    def test_integer_input_to_arithmetic(self):
        x = Variable(np.ones(2, np.int32))
        with pytest.raises(type_check.InvalidType, match=r'lhs\.dtype\.kind == f'):
            x * x

    def test_integer_addition_is_allowed_as_in_chainer(self):
        x = Variable(np.ones(2, np.int8))
        np.testing.assert_array_equal((x + x).array, [2, 2])
        with pytest.raises(type_check.InvalidType, match=r'lhs\.dtype == rhs\.dtype'):
            x + Variable(np.ones(2, np.int16))

    def test_type_check_can_be_disabled(self):
        x = Variable(np.ones((2, 2), np.float64))
        with catena.using_config('type_check', False):
            y, = Square().apply((x,))
        np.testing.assert_array_equal(y.array, np.ones((2, 2)))

    def test_calling_a_node_directly_says_what_to_call(self):
        with pytest.raises(TypeError, match=r'Square\(\)\.apply'):
            Square()(Variable(f32(2, 2)))

    def test_forward_must_return_a_tuple(self):
        class NoTuple(FunctionNode):
            def forward(self, inputs):
                return inputs[0]

        with pytest.raises(TypeError, match=r'forward output must be a tuple \(NoTuple\)'):
            NoTuple().apply((f32(2),))


class TestApply:

    def test_arrays_become_constant_inputs(self):
        y, = Square().apply((f32(2, 2),))
        assert not y.requires_grad
        assert y.creator is None

    def test_backward_through_custom_node(self):
        a = f32(2, 2)
        x = Variable(a)
        y, = Square().apply((x,))
        F.sum(y).backward()
        np.testing.assert_allclose(x.grad, 2 * a, rtol=1e-6)

    def test_retained_outputs_connect_for_double_backprop(self):
        x = Variable(np.array([0.5, -1.0], np.float32))
        y = F.exp(x)
        gx, = catena.grad([F.sum(y)], [x], enable_double_backprop=True)
        ggx, = catena.grad([F.sum(gx)], [x])
        np.testing.assert_allclose(ggx.array, np.exp(x.array), rtol=1e-6)

    def test_legacy_forward_cpu_is_used(self):
        class Legacy(FunctionNode):
            def forward_cpu(self, inputs):
                return inputs[0] * 3,

            def backward(self, indexes, grad_outputs):
                return grad_outputs[0] * 3,

        x = Variable(np.array([1.0], np.float32))
        y, = Legacy().apply((x,))
        y.backward()
        np.testing.assert_array_equal(y.array, [3.0])
        np.testing.assert_array_equal(x.grad, [3.0])

    def test_multiple_outputs_with_one_unused(self):
        class Split(FunctionNode):
            def forward(self, inputs):
                x, = inputs
                return x[:1].copy(), x[1:].copy()

            def backward(self, indexes, grad_outputs):
                g0, g1 = grad_outputs
                xp = np
                parts = [g.array if g is not None else xp.zeros(1, np.float32)
                         for g in (g0, g1)]
                return Variable(np.concatenate(parts)),

        x = Variable(np.array([1.0, 2.0], np.float32))
        a, b = Split().apply((x,))
        (a * 5).backward()
        np.testing.assert_array_equal(x.grad, [5.0, 0.0])

    def test_backward_accumulate_override_is_used(self):
        calls = []

        class Accumulating(FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
                calls.append(grad_inputs)
                gx = grad_outputs[0] * 2
                return (gx if grad_inputs[0] is None else gx + grad_inputs[0]),

        x = Variable(np.array([1.0], np.float32))
        h = x * 1
        y = Accumulating().apply((h,))[0] + h * 3
        y.backward()
        np.testing.assert_array_equal(x.grad, [5.0])
        assert len(calls) == 1

    def test_debug_mode_names_node_and_stage(self):
        x = Variable(np.array([-1.0], np.float32))
        with catena.using_config('debug', True):
            with pytest.raises(RuntimeError,
                               match=r'NaN is detected on forward computation of log'):
                with np.errstate(invalid='ignore'):
                    F.log(x)

        class BadGrad(FunctionNode):
            def forward(self, inputs):
                return inputs[0].copy(),

            def backward(self, indexes, grad_outputs):
                return grad_outputs[0] * np.float32(np.inf),

        x = Variable(np.array([1.0], np.float32))
        catena.set_debug(True)
        try:
            assert catena.is_debug()
            y, = BadGrad().apply((x,))
            with pytest.raises(RuntimeError,
                               match=r'Inf is detected on forward computation of _') as info:
                y.backward()
            notes = getattr(info.value, '__notes__', ['raised in the backward pass of BadGrad'])
            assert any('backward pass of BadGrad' in note for note in notes)
        finally:
            catena.set_debug(False)

    def test_wrong_gradient_shape_is_reported(self):
        class WrongShape(FunctionNode):
            def forward(self, inputs):
                return inputs[0].copy(),

            def backward(self, indexes, grad_outputs):
                return Variable(np.ones(3, np.float32)),

        x = Variable(np.ones(2, np.float32))
        y, = WrongShape().apply((x,))
        y.grad = np.ones(2, np.float32)
        with pytest.raises(ValueError,
                           match=r'(?s)`WrongShape`.*input 0.*grad: \(3,\) != data: \(2,\)'):
            y.backward()

    def test_wrong_gradient_dtype_is_a_type_error(self):
        class WrongDtype(FunctionNode):
            def forward(self, inputs):
                return inputs[0].copy(),

            def backward(self, indexes, grad_outputs):
                return Variable(np.ones(2, np.float64)),

        x = Variable(np.ones(2, np.float32))
        y, = WrongDtype().apply((x,))
        y.grad = np.ones(2, np.float32)
        with pytest.raises(TypeError, match=r'(?s)`WrongDtype`.*grad: float64 != data: float32'):
            y.backward()

    def test_debug_mode_checks_returned_gradients(self):
        class WrongType(FunctionNode):
            def forward(self, inputs):
                return inputs[0].copy(),

            def backward(self, indexes, grad_outputs):
                return np.ones(2, np.float32),

        x = Variable(np.ones(2, np.float32))
        y, = WrongType().apply((x,))
        y.grad = np.ones(2, np.float32)
        with catena.using_config('debug', True):
            with pytest.raises(ValueError, match='type of gradients returned from backward '
                                                 'is incorrect'):
                y.backward()

    def test_debug_mode_appends_where_the_function_was_applied(self):
        x = Variable(np.array(0.0))
        with catena.using_config('debug', True):
            y = F.sqrt(x)
            with np.errstate(divide='raise'), pytest.raises(FloatingPointError) as info:
                y.backward()
        assert 'Stacktrace of the function is below' in str(info.value)
        assert 'test_function_node.py' in str(info.value)

    def test_check_type_forward_set_on_the_instance_runs(self):
        node = FunctionNode()
        seen = []
        node.check_type_forward = seen.append
        node.forward = lambda inputs: (inputs[0] * 2,)
        node.apply((np.ones(2, np.float32),))
        assert len(seen) == 1 and seen[0][0].shape == (2,)

    def test_forward_must_return_arrays(self):
        class Bad(FunctionNode):
            def forward(self, inputs):
                return object(),

        with pytest.raises(TypeError, match='forward output must be a tuple of ndarrays'):
            Bad().apply((np.ones(1, np.float32),))

    def test_none_inputs_and_outputs_are_variables_without_arrays(self):
        class Gap(FunctionNode):
            def forward(self, inputs):
                self.retain_inputs((0, 1))
                self.retain_outputs((0, 1))
                return None, inputs[1] * 2

            def backward(self, indexes, grad_outputs):
                assert self.get_retained_inputs()[0] is None
                assert self.get_retained_outputs()[0] is None
                assert grad_outputs[0] is None
                return None, grad_outputs[1] * 2

        x = Variable(np.ones(2, np.float32))
        a, b = Gap().apply((None, x))
        assert a.array is None
        b.grad = np.ones(2, np.float32)
        b.backward()
        np.testing.assert_array_equal(x.grad, [2.0, 2.0])

    def test_retained_outputs_are_kept_in_the_output_nodes(self):
        class Keep(FunctionNode):
            def forward(self, inputs):
                self.retain_outputs((1,))
                return inputs[0] * 1, inputs[0] * 2

        x = Variable(np.ones(1, np.float32))
        a, b = Keep().apply((x,))
        assert a.node.data is None
        assert b.node.data is b.array


class TestOldStyleFunction:

    def test_function_forward_and_backward(self):
        class Cube(catena.Function):
            def forward_cpu(self, inputs):
                return inputs[0] ** 3,

            def backward_cpu(self, inputs, grad_outputs):
                return 3 * inputs[0] ** 2 * grad_outputs[0],

        x = Variable(np.array([2.0], np.float32))
        y = Cube()(x)
        assert isinstance(y, Variable)
        assert isinstance(y.creator, Cube)
        assert isinstance(y.creator_node, catena.FunctionAdapter)
        y.backward()
        np.testing.assert_array_equal(x.grad, [12.0])

    def test_function_with_two_outputs_gets_none_for_missing_grad(self):
        class Pair(catena.Function):
            def forward(self, inputs):
                return inputs[0] * 2, inputs[0] * 3

            def backward(self, inputs, grad_outputs):
                g0, g1 = grad_outputs
                assert g0 is None
                return g1 * 3,

        x = Variable(np.array([1.0], np.float32))
        a, b = Pair()(x)
        b.backward()
        np.testing.assert_array_equal(x.grad, [3.0])


class TestGrad:

    def test_grad_leaves_grads_alone(self):
        x = Variable(np.array([3.0], np.float32))
        y = x * x
        gx, = catena.grad([y], [x])
        np.testing.assert_array_equal(gx.array, [6.0])
        assert x.grad is None

    def test_grad_of_intermediate_variable(self):
        x = Variable(np.array([3.0], np.float32))
        h = x * 2
        y = h * h + x
        gh, gx = catena.grad([y], [h, x])
        np.testing.assert_array_equal(gh.array, [12.0])
        np.testing.assert_array_equal(gx.array, [25.0])

    def test_grad_set_grad_and_grad_inputs(self):
        x = Variable(np.array([3.0], np.float32))
        y = x * x
        gx, = catena.grad([y], [x], grad_inputs=[np.array([1.0], np.float32)],
                          set_grad=True)
        np.testing.assert_array_equal(gx.array, [7.0])
        assert x.grad_var is gx

    def test_unreachable_input_is_none(self):
        x = Variable(np.array([1.0], np.float32))
        z = Variable(np.array([1.0], np.float32))
        assert catena.grad([x * 2], [z]) == [None]

    def test_grad_rejects_single_variable(self):
        x = Variable(np.array([1.0], np.float32))
        with pytest.raises(TypeError, match='tuple or list'):
            catena.grad(x * 2, [x])

    def test_multi_output_backward(self):
        x = Variable(np.array([1.0, 2.0], np.float32))
        y1 = x * 2
        y2 = x * x
        catena.backward([y1, y2], [np.ones(2, np.float32), np.full(2, 0.5, np.float32)])
        np.testing.assert_array_equal(x.grad, [3.0, 4.0])

    def test_double_backprop_through_tanh(self):
        a = np.array([0.3, -0.7], np.float64)
        x = Variable(a)
        y = F.tanh(x)
        gx, = catena.grad([F.sum(y)], [x], enable_double_backprop=True)
        ggx, = catena.grad([F.sum(gx)], [x])
        t = np.tanh(a)
        np.testing.assert_allclose(gx.array, 1 - t * t)
        np.testing.assert_allclose(ggx.array, -2 * t * (1 - t * t))


def test_basic_math_constant_labels():
    from catena.functions.math import basic_math

    assert basic_math._convert_value_to_string(2) == '2'
    assert basic_math._convert_value_to_string(-2) == '(-2)'
    assert basic_math._convert_value_to_string(-2.0) == '(-2.0)'
    assert basic_math._convert_value_to_string(np.float32(2)) == '2.0'
    assert basic_math._convert_value_to_string(np.array([1, 2])) == 'constant array'
    assert basic_math._convert_value_to_string(Variable(np.ones(2))) == 'constant array'
