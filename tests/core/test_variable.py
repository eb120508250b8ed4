import pickle
import weakref

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import Variable


def f32(*shape):
    return np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)


class TestConstruction:

    def test_array_and_data_are_the_same(self):
        a = f32(2, 3)
        x = Variable(a)
        assert x.array is a and x.data is a
        b = f32(2, 3)
        x.data = b
        assert x.array is b

    def test_attributes(self):
        x = Variable(f32(2, 3), name='x')
        assert (x.shape, x.ndim, x.size, x.dtype, len(x)) == ((2, 3), 2, 6, np.float32, 2)
        assert x.name == 'x' and x.node.name == 'x'
        assert x.xp is np
        assert str(x.device) == '@numpy'
        assert x.requires_grad
        assert x.creator is None and x.creator_node is None
        assert Variable(f32(2), requires_grad=False).requires_grad is False

    def test_rejects_non_arrays(self):
        with pytest.raises(TypeError, match='Variable data'):
            Variable([1.0, 2.0])
        with pytest.raises(TypeError, match='int'):
            Variable(3)

    def test_none_data(self):
        x = Variable()
        assert x.array is None
        assert repr(x) == 'variable(None)'

    def test_item(self):
        assert Variable(np.array([2.5], np.float32)).item() == 2.5
        with pytest.raises(ValueError, match='size 1'):
            Variable(f32(2)).item()


class TestGrad:

    def test_grad_setter_checks_shape(self):
        x = Variable(f32(2, 3))
        with pytest.raises(ValueError, match=r'Shape of data and grad mismatch'):
            x.grad = np.zeros((3, 2), np.float32)
        assert x.grad is None

    def test_grad_setter_checks_dtype(self):
        x = Variable(f32(2, 3))
        with pytest.raises(TypeError, match=r'Dtype of data and grad mismatch'):
            x.grad = np.zeros((2, 3), np.float64)

    def test_grad_setter_rejects_a_scalar(self):
        x = Variable(np.zeros((), np.float32))
        with pytest.raises(TypeError, match='must be an array'):
            x.grad = np.float32(1)

    def test_grad_var(self):
        x = Variable(f32(2))
        g = np.ones(2, np.float32)
        x.grad = g
        assert x.grad_var.array is g
        x.cleargrad()
        assert x.grad is None and x.grad_var is None

    def test_zerograd_is_deprecated(self):
        x = Variable(f32(2))
        with pytest.warns(DeprecationWarning, match='cleargrad'):
            x.zerograd()
        np.testing.assert_array_equal(x.grad, np.zeros(2, np.float32))

    def test_addgrad(self):
        x = Variable(f32(2))
        y = Variable(f32(2))
        y.grad = np.array([1, 2], np.float32)
        x.addgrad(y)
        np.testing.assert_array_equal(x.grad, [1, 2])
        x.addgrad(y)
        np.testing.assert_array_equal(x.grad, [2, 4])

    def test_backward_accumulates_into_leaves(self):
        x = Variable(np.array([3.0], np.float32))
        (x * x).backward()
        (x * x).backward()
        np.testing.assert_array_equal(x.grad, [12.0])

    def test_backward_of_non_scalar_without_grad_raises(self):
        x = Variable(f32(2, 2))
        y = x * 2
        with pytest.raises(ValueError, match=r'shape \(2, 2\).*set its grad'):
            y.backward()

    def test_intermediate_grads_are_released(self):
        x = Variable(np.array([1.0], np.float32))
        h = x * 3
        y = h * h
        y.backward()
        assert h.grad is None
        np.testing.assert_array_equal(x.grad, [18.0])

    def test_loss_scale(self):
        x = Variable(np.array([2.0], np.float32))
        (x * x).backward(loss_scale=8.0)
        np.testing.assert_array_equal(x.grad, [32.0])
        assert x._loss_scale == 8.0

    def test_requires_grad_false_leaf_gets_no_grad(self):
        x = Variable(np.array([2.0], np.float32), requires_grad=False)
        w = Variable(np.array([3.0], np.float32))
        (x * w).backward()
        assert x.grad is None
        np.testing.assert_array_equal(w.grad, [2.0])


class TestGraph:

    def test_creator_and_rank(self):
        x = Variable(f32(2))
        y = x * 2
        z = y + x
        assert y.creator_node is not None and y.creator is y.creator_node
        assert y.rank == 1 and z.rank == 2
        assert z.creator_node.inputs[0] is y.node

    def test_unchain(self):
        x = Variable(f32(2))
        y = x * 2
        z = y * 3
        z.unchain()
        assert z.creator is None
        assert y.creator is not None

    def test_unchain_backward(self):
        x = Variable(f32(2))
        y = x * 2
        z = y * 3
        z.unchain_backward()
        assert z.creator is None and y.creator is None

    def test_no_backprop_mode(self):
        x = Variable(f32(2))
        with catena.no_backprop_mode():
            y = x * 2
            with catena.force_backprop_mode():
                z = x * 2
        assert y.creator is None
        assert z.creator is not None

    def test_graph_holds_nodes_not_variables(self):
        x = Variable(f32(2))
        y = x * 2
        z = y + 1
        ref = weakref.ref(y)
        del y
        assert ref() is None
        z.grad = np.ones(2, np.float32)
        z.backward()
        np.testing.assert_array_equal(x.grad, [2, 2])

    def test_retained_input_of_collected_variable(self):
        x = Variable(np.array([2.0], np.float32))
        h = x * 1.5
        y = h * h  # Mul retains h's array though h itself is collected.
        del h
        y.backward()
        np.testing.assert_allclose(x.grad, [2 * 3.0 * 1.5])


class TestOperators:

    def test_scalar_operands_keep_dtype(self):
        for dtype in (np.float16, np.float32, np.float64):
            x = Variable(np.array([1.0, 2.0], dtype))
            for y in (x + 1, 1 + x, x - 1.5, 2 - x, x * np.float64(2), 3 * x, x / 2, 2 / x,
                      x ** 2, 2 ** x, -x, abs(x)):
                assert y.dtype == dtype

    def test_values(self):
        a, b = f32(3), f32(3) + 2
        x, y = Variable(a), Variable(b)
        np.testing.assert_allclose((x + y).array, a + b)
        np.testing.assert_allclose((x - y).array, a - b)
        np.testing.assert_allclose((x * y).array, a * b)
        np.testing.assert_allclose((x / y).array, a / b, rtol=1e-6)
        np.testing.assert_allclose((y ** x).array, b ** a, rtol=1e-6)
        np.testing.assert_allclose((2 - x).array, 2 - a)
        np.testing.assert_allclose((2 / y).array, 2 / b, rtol=1e-6)
        np.testing.assert_allclose((2 ** x).array, 2 ** a, rtol=1e-6)
        np.testing.assert_allclose(abs(x).array, np.abs(a))
        np.testing.assert_allclose((-x).array, -a)

    def test_array_operand_on_either_side(self):
        a, b = f32(3), f32(3)
        x = Variable(a)
        np.testing.assert_allclose((b + x).array, a + b)
        np.testing.assert_allclose((b - x).array, b - a)
        np.testing.assert_allclose((x * b).array, a * b)
        assert isinstance(b * x, Variable)

    def test_broadcasting_and_gradients(self):
        x = Variable(f32(2, 3))
        b = Variable(f32(3))
        y = x * b + b
        y.grad = np.ones((2, 3), np.float32)
        y.backward()
        np.testing.assert_allclose(b.grad, x.array.sum(axis=0) + 2, rtol=1e-6)
        np.testing.assert_allclose(x.grad, np.broadcast_to(b.array, (2, 3)))

    @pytest.mark.parametrize('shapes', [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)),
                                        ((4,), (4,)), ((2, 3, 4), (4, 5)),
                                        ((2, 1, 3, 4), (5, 4, 2))])
    def test_matmul(self, shapes):
        a, b = f32(*shapes[0]), f32(*shapes[1]) + 0.5
        x, y = Variable(a), Variable(b)
        z = x @ y
        np.testing.assert_allclose(z.array, np.matmul(a, b), rtol=1e-5)
        gz = np.ones_like(z.array) if z.ndim else np.ones((), np.float32)
        gx, gy = catena.grad([z], [x, y], [gz])
        # d(sum(a @ b))/da = ones @ b^T, checked against einsum-free NumPy.
        eps = 1e-3
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        num = np.zeros_like(a64)
        for i in np.ndindex(a.shape):
            d = np.zeros_like(a64)
            d[i] = eps
            num[i] = (np.matmul(a64 + d, b64).sum() - np.matmul(a64 - d, b64).sum()) / (2 * eps)
        np.testing.assert_allclose(gx.array, num, rtol=1e-4, atol=1e-4)
        assert gy.shape == b.shape

    def test_comparisons_raise(self):
        x = Variable(f32(2))
        for compare in (lambda: x == x, lambda: x != x, lambda: x < x, lambda: x <= x,
                        lambda: x > x, lambda: x >= x):
            with pytest.raises(TypeError, match='compare their arrays'):
                compare()
        with pytest.raises(TypeError, match='ambiguous'):
            bool(x)

    def test_variables_are_unhashable_as_in_chainer(self):
        x = Variable(f32(2))
        with pytest.raises(TypeError, match='^unhashable type: '):
            hash(x)
        assert {x.node: 1}[x.node] == 1  # nodes are the hashable handles

    def test_unsupported_operand(self):
        with pytest.raises(TypeError, match='unsupported operand for \\+'):
            Variable(f32(2)) + 'a'

    def test_getitem(self):
        a = f32(3, 4)
        x = Variable(a)
        y = x[1:, [0, 2, 2]]
        np.testing.assert_array_equal(y.array, a[1:, [0, 2, 2]])
        y.grad = np.ones(y.shape, np.float32)
        y.backward()
        expected = np.zeros_like(a)
        np.add.at(expected, (slice(1, None), [0, 2, 2]), 1)
        np.testing.assert_array_equal(x.grad, expected)

    def test_reshape_transpose_T(self):
        a = f32(2, 3)
        x = Variable(a)
        assert x.reshape(3, 2).shape == (3, 2)
        assert x.reshape((6,)).shape == (6,)
        np.testing.assert_array_equal(x.T.array, a.T)
        np.testing.assert_array_equal(x.transpose(1, 0).array, a.T)
        y = F.sum(x.T * Variable(np.arange(6, dtype=np.float32).reshape(3, 2)))
        y.backward()
        np.testing.assert_array_equal(x.grad, np.arange(6, dtype=np.float32).reshape(3, 2).T)


class TestDescriptions:

    def test_summary_and_debug_print(self):
        x = Variable(np.arange(4, dtype=np.float32).reshape(2, 2), name='w')
        assert x.summary() == '<variable w>'
        assert Variable().summary().startswith('<variable at 0x')
        text = x.debug_print()
        assert text.splitlines()[0] == '<variable w>'
        assert '- device: CPU' in text and '- backend: numpy.ndarray' in text
        std = float(np.std(x.array))  # in the array's dtype, as Chainer computes it
        assert f'- statistics: mean=1.50000000, std={std:.8f}' in text
        assert '- grad: None' in text
        x.grad = np.zeros((2, 2), np.float32)
        assert '- grad: 0' in x.debug_print()
        empty = Variable().debug_print()
        for line in ('device: None', 'shape: None', 'statistics: None', 'grad: None'):
            assert line in empty

    def test_repr_and_str_with_names_and_empty_shapes(self):
        x = Variable(np.arange(4, dtype=np.float32).reshape(2, 2), name='x')
        assert repr(x) == 'variable x([[0., 1.],\n            [2., 3.]])'
        assert str(x) == 'variable x([[0. 1.]\n            [2. 3.]])'
        assert repr(Variable(name='x')) == 'variable x(None)'
        assert repr(Variable(np.empty((0, 0), np.float32))) == 'variable([], shape=(0, 0))'
        assert str(Variable(np.empty((0, 0), np.float32))) == 'variable([])'

    def test_label(self):
        assert Variable(f32(2, 3)).label == '(2, 3), float32'
        assert Variable(np.ones((), np.float32)).label == 'float32'

    def test_str(self):
        assert str(Variable(np.array([1.0], np.float32))) == 'variable([1.])'


class TestParameter:

    def test_initialized_with_shape(self):
        p = catena.Parameter(2.0, (2, 3), name='W')
        np.testing.assert_array_equal(p.array, np.full((2, 3), 2.0, np.float32))
        assert np.isnan(p.grad).all()
        assert p.is_initialized and p.name == 'W'

    def test_lazy_initialization(self):
        p = catena.Parameter(catena.initializers.Constant(3.0))
        assert not p.is_initialized and p.array is None
        assert p.dtype == np.float32
        p.initialize((2,))
        np.testing.assert_array_equal(p.array, [3.0, 3.0])
        assert np.isnan(p.grad).all()

    def test_from_array(self):
        a = np.ones((2,), np.float64)
        p = catena.Parameter(a)
        assert p.array is a and p.grad is None

    def test_default_is_nan(self):
        p = catena.Parameter(shape=(2,))
        assert np.isnan(p.array).all()

    def test_dtype_follows_config(self):
        with catena.using_config('dtype', np.float64):
            p = catena.Parameter(1.0, (2,))
        assert p.dtype == np.float64

    def test_gradient_flows_into_parameter(self):
        p = catena.Parameter(np.array([2.0], np.float32))
        (p * p).backward()
        np.testing.assert_array_equal(p.grad, [4.0])

    def test_pickle_roundtrip(self):
        p = catena.Parameter(np.array([2.0], np.float32), name='p')
        q = pickle.loads(pickle.dumps(p))
        np.testing.assert_array_equal(q.array, p.array)
        assert q.name == 'p'


def test_as_variable_and_as_array():
    a = f32(2)
    x = catena.as_variable(a)
    assert isinstance(x, Variable) and x.array is a and not x.requires_grad
    assert catena.as_variable(x) is x
    assert catena.as_array(x) is a and catena.as_array(a) is a


def test_copydata_between_uninitialized_variables_is_a_no_op():
    a, b = catena.Variable(None), catena.Variable(None)
    a.copydata(b)
    assert a.array is None and b.array is None


def test_copydata_from_an_uninitialized_variable_names_the_shapes():
    target = catena.Variable(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r'no array.*\(2, 3\)'):
        target.copydata(catena.Variable(None, name='src'))


def test_copydata_initializes_an_uninitialized_parameter_source():
    target = catena.Variable(np.ones((2, 3), np.float32))
    source = catena.Parameter(catena.initializers.Constant(5.0))
    target.copydata(source)
    assert source.shape == (2, 3)
    np.testing.assert_array_equal(target.array, np.full((2, 3), 5.0, np.float32))


class TestChainerGraphSemantics:
    """Behaviour that Chainer programs rely on (see docs/compat.md)."""

    def test_node_attributes(self):
        x = Variable(f32(2))
        assert x._node is x.node and x._has_chainerx_array is False
        x._node._rank = 3
        assert x.rank == 3 and x.node.requires_grad
        y = Variable._init_unchecked(f32(2), name='y')
        assert y.name == 'y' and isinstance(y.node, catena.variable.VariableNode)
        with pytest.raises(ValueError, match='grad'):
            catena.variable.VariableNode(Variable(), '', grad=None)

    def test_backward_consumes_the_output_gradient(self):
        x = Variable(f32(3))
        y = x * 2
        y.grad = np.ones(3, np.float32)
        y.backward()
        assert y.grad is None and x.grad is not None
        z = x * 3
        z.grad = np.ones(3, np.float32)
        z.backward(retain_grad=True)
        assert z.grad is not None

    def test_backward_of_a_leaf_does_nothing(self):
        x = Variable(np.ones((), np.float32))
        x.backward()
        assert x.grad is None

    def test_one_element_non_scalar_backward_warns(self):
        x = Variable(np.ones(1, np.float32))
        with pytest.warns(DeprecationWarning, match='only one element'):
            (x * 2).backward()
        np.testing.assert_array_equal(x.grad, [2.0])

    def test_old_style_gradients_cannot_be_differentiated_again(self):
        class Identity(catena.Function):
            def forward(self, inputs):
                return inputs[0].copy(),

            def backward(self, inputs, grad_outputs):
                return grad_outputs[0],

        x = Variable(np.array(2.0, np.float32))
        Identity()(x).backward(enable_double_backprop=True)
        with pytest.raises(RuntimeError, match='old style Function "Identity"'):
            x.grad_var.backward()
        with pytest.raises(RuntimeError, match='twice-differentiate'):
            catena.grad([x.grad_var], [x])

    def test_unchained_output_does_not_pass_its_gradient_on(self):
        x = Variable(np.arange(4, dtype=np.float32).reshape(2, 2))
        h0, h1 = F.split_axis(x, [1], axis=0)
        w = F.sum(h0) + F.sum(h1)
        h0.unchain()
        gx, = catena.grad([w], [x])
        np.testing.assert_array_equal(gx.array, [[0, 0], [1, 1]])

    def test_grad_inputs_flow_back_through_intermediate_inputs(self):
        x = Variable(np.array(1.0, np.float32))
        h = x * 2
        y = h * 3
        gx, gh = catena.grad([y], [x, h], grad_inputs=[None, np.array(10.0, np.float32)])
        np.testing.assert_allclose(gh.array, 13.0)
        np.testing.assert_allclose(gx.array, 26.0)

    def test_grad_fills_ones_and_checks_lengths(self):
        x = Variable(f32(3))
        gx, = catena.grad([x * 2], [x])
        np.testing.assert_array_equal(gx.array, [2, 2, 2])
        with pytest.raises(ValueError, match='grad_outputs has 2 entries'):
            catena.grad([x * 2], [x], [None, None])
        with pytest.raises(ValueError, match='grad_inputs has 0 entries'):
            catena.grad([x * 2], [x], None, [])

    def test_backward_of_several_outputs(self):
        x = Variable(np.array(4.0, np.float32))
        x.grad = np.array(3.0, np.float32)
        y = x * 2
        with pytest.warns(RuntimeWarning, match='no gradient'):
            catena.backward([y])
        assert x.grad == 3.0
        z = x * 2
        z.grad = np.array(1.0, np.float32)
        with pytest.warns(RuntimeWarning, match='more than once'):
            catena.backward([z, z])
        assert x.grad == 5.0 and z.grad is None
        with pytest.raises(TypeError, match='tuple or list'):
            catena.backward([z], Variable(np.array(1.0, np.float32)))

    def test_retain_outputs_puts_the_data_in_the_node(self):
        y, = F.exp(Variable(f32(2))),
        assert y.node.data is y.array


class TestParameterChainerSemantics:

    def test_dtype_of_an_initializer_without_one_is_unknown(self):
        p = catena.Parameter(lambda array: array.fill(1))
        with pytest.raises(RuntimeError, match='dtype'):
            p.dtype

    def test_the_gradient_of_an_uninitialized_parameter_is_not_there_to_read(self):
        p = catena.Parameter(name='w')
        with pytest.raises(RuntimeError, match="uninitialized parameter 'w'.*cleargrad"):
            p.grad
        p.cleargrad()
        assert p.grad is None
        p.initialize((2,))
        assert p.grad is None

    def test_a_shared_copy_of_an_uninitialized_parameter_has_no_gradient(self):
        link = catena.Link()
        with link.init_scope():
            link.p = catena.Parameter()
        copied = link.copy(mode='share')
        assert copied.p.grad is None
        with pytest.raises(RuntimeError):
            link.p.grad  # the original still makes one when initialized
        link.p.initialize((2,))
        assert np.isnan(link.p.grad).all()

    def test_an_uninitialized_parameter_gets_its_gradient_on_initialize(self):
        p = catena.Parameter()
        p.zerograd()
        with pytest.raises(RuntimeError):
            p.grad
        p.initialize((2,))
        np.testing.assert_array_equal(p.grad, [0.0, 0.0])

    def test_an_optimizer_step_skips_an_uninitialized_parameter(self):
        link = catena.Link()
        with link.init_scope():
            link.w = catena.Parameter(np.ones(2, np.float32))
            link.lazy = catena.Parameter()
        link.w.grad = np.ones(2, np.float32)
        optimizer = catena.optimizers.SGD(lr=0.5)
        optimizer.setup(link)
        optimizer.add_hook(catena.optimizer_hooks.WeightDecay(0.1))
        optimizer.update()
        np.testing.assert_allclose(link.w.array, 1 - 0.5 * (1 + 0.1))
        assert link.lazy.array is None

    def test_addgrad_initializes_an_uninitialized_parameter(self):
        p = catena.Parameter()
        p.cleargrad()
        q = catena.Parameter(np.ones((2, 3), np.float32))
        q.grad = np.full((2, 3), 2.0, np.float32)
        p.addgrad(q)
        assert p.shape == (2, 3)
        np.testing.assert_array_equal(p.grad, q.grad)

    def test_internal_grad_name(self):
        p = catena.Parameter(np.ones(2, np.float32))
        p.grad = np.ones(2, np.float32)
        assert p._grad is p.grad

    def test_a_shaped_parameter_has_a_nan_gradient_until_initialized_again(self):
        p = catena.Parameter(shape=(2,))
        assert np.isnan(p.grad).all()
        p.initialize((2,))
        assert p.grad is None  # as in Chainer

    def test_a_copy_keeps_the_gradient_and_gets_a_nan_gradient_initializer(self):
        p = catena.Parameter(np.ones(2, np.float32))
        p.grad = np.full(2, 3.0, np.float32)
        restored = pickle.loads(pickle.dumps(p))
        np.testing.assert_array_equal(restored.grad, p.grad)
        restored.initialize((2,))
        assert np.isnan(restored.grad).all()

    def test_a_shallow_copy_shares_the_array_set_later(self):
        import copy

        p = catena.Parameter()
        q = copy.copy(p)
        p.initialize((3, 2))
        assert q.array is p.array
        q.array = np.zeros((3, 2), np.float32)
        assert p.array is q.array


def test_floor_division_operators():
    x = Variable(np.array([3.0, 7.0], np.float32))
    np.testing.assert_array_equal((x // 2).array, [1.0, 3.0])
    np.testing.assert_array_equal((7 // x).array, [2.0, 1.0])
    np.testing.assert_array_equal((x // Variable(np.array([2.0, 2.0], np.float32))).array,
                                  [1.0, 3.0])
    assert (x // 2).dtype == np.float32
