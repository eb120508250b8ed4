import threading

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import FunctionHook, FunctionNode, Variable


class Recorder(FunctionHook):
    """Records every callback as (event, function label, extra)."""

    name = 'Recorder'

    def __init__(self, name=None):
        if name is not None:
            self.name = name
        self.events = []

    def added(self, function):
        self.events.append(('added', function))

    def deleted(self, function):
        self.events.append(('deleted', function))

    def forward_preprocess(self, function, in_data):
        self.events.append(('forward_pre', function.label, len(in_data)))

    def forward_postprocess(self, function, in_data):
        self.events.append(('forward_post', function.label, len(in_data)))

    def backward_preprocess(self, function, in_data, out_grad):
        self.events.append(('backward_pre', function.label, len(in_data), len(out_grad)))

    def backward_postprocess(self, function, in_data, out_grad):
        self.events.append(('backward_post', function.label, len(in_data), len(out_grad)))

    def calls(self, kind):
        return [e[1] for e in self.events if e[0] == kind]


class Twice(FunctionNode):

    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class Plus(FunctionNode):

    def forward(self, inputs):
        return inputs[0] + inputs[1],

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0], grad_outputs[0]


def f32(*shape):
    return np.ones(shape, np.float32)


class TestGlobalHooks:

    def test_with_registers_and_unregisters(self):
        hook = Recorder()
        assert 'Recorder' not in catena.get_function_hooks()
        with hook as entered:
            assert entered is hook
            assert catena.get_function_hooks()['Recorder'] is hook
        assert 'Recorder' not in catena.get_function_hooks()
        assert hook.events == [('added', None), ('deleted', None)]

    def test_unregisters_after_an_exception(self):
        with pytest.raises(RuntimeError), Recorder():
            raise RuntimeError('boom')
        assert 'Recorder' not in catena.get_function_hooks()

    def test_forward_and_backward_of_every_node(self):
        x = Variable(f32(3))
        w = Variable(f32(3))
        with Recorder() as hook:
            h, = Twice().apply((x,))
            y, = Plus().apply((h, w))
            loss = F.sum(y)
            loss.backward()
        assert hook.calls('forward_pre')[:3] == ['Twice', 'Plus', 'Sum']
        assert hook.calls('forward_post')[:3] == ['Twice', 'Plus', 'Sum']
        # Each node's backward runs between a pre- and a postprocess call.
        assert set(hook.calls('backward_pre')) >= {'Sum', 'Plus', 'Twice'}
        assert sorted(hook.calls('backward_pre')) == sorted(hook.calls('backward_post'))
        plus = [e for e in hook.events if e[0] == 'backward_pre' and e[1] == 'Plus']
        assert plus == [('backward_pre', 'Plus', 2, 1)]
        np.testing.assert_array_equal(x.grad, np.full(3, 2, np.float32))

    def test_pre_and_post_bracket_the_computation(self):
        order = []

        class Probe(FunctionNode):
            def forward(self, inputs):
                order.append('forward')
                return inputs[0].copy(),

            def backward(self, indexes, grad_outputs):
                order.append('backward')
                return grad_outputs[0],

        class OrderHook(FunctionHook):
            name = 'OrderHook'

            def forward_preprocess(self, function, in_data):
                order.append('forward_pre')

            def forward_postprocess(self, function, in_data):
                order.append('forward_post')

            def backward_preprocess(self, function, in_data, out_grad):
                order.append('backward_pre')

            def backward_postprocess(self, function, in_data, out_grad):
                order.append('backward_post')

        x = Variable(f32(2))
        with OrderHook():
            y, = Probe().apply((x,))
            y.grad = f32(2)
            y.backward()
        assert order == ['forward_pre', 'forward', 'forward_post',
                         'backward_pre', 'backward', 'backward_post']

    def test_in_data_and_out_grad_are_arrays(self):
        seen = {}

        class Peek(FunctionHook):
            name = 'Peek'

            def forward_preprocess(self, function, in_data):
                seen.setdefault(('forward', function.label), in_data)

            def backward_preprocess(self, function, in_data, out_grad):
                seen[('backward', function.label)] = (in_data, out_grad)

        a = np.arange(3, dtype=np.float32)
        x = Variable(a)
        with Peek():
            y = F.tanh(x)  # retains its output only, not its input
            y.grad = np.full(3, 5, np.float32)
            y.backward()
        assert seen[('forward', 'Tanh')][0] is a
        # Its backward applies TanhGrad, whose forward the hook sees as well.
        assert ('forward', 'TanhGrad') in seen
        in_data, out_grad = seen[('backward', 'Tanh')]
        assert in_data == (None,)  # the input was not retained
        np.testing.assert_array_equal(out_grad[0], np.full(3, 5, np.float32))

    def test_duplicate_names_raise_key_error(self):
        with Recorder():
            with pytest.raises(KeyError, match='Recorder'):
                with Recorder():
                    pass  # pragma: no cover
            # The first hook stays registered.
            assert 'Recorder' in catena.get_function_hooks()
        with Recorder('a'), Recorder('b'):
            assert list(catena.get_function_hooks()) == ['a', 'b']
        assert catena.get_function_hooks() == {}

    def test_hooks_are_called_in_registration_order(self):
        order = []

        class Tagged(FunctionHook):
            def __init__(self, name):
                self.name = name

            def forward_preprocess(self, function, in_data):
                order.append(self.name)

        with Tagged('first'), Tagged('second'):
            Twice().apply((f32(1),))
        assert order == ['first', 'second']

    def test_no_calls_after_exit(self):
        hook = Recorder()
        with hook:
            pass
        Twice().apply((f32(1),))
        assert hook.calls('forward_pre') == []

    def test_thread_locality(self):
        hook = Recorder()
        other = {}
        started = threading.Event()
        finish = threading.Event()

        def work():
            other['hooks'] = dict(catena.get_function_hooks())
            Twice().apply((Variable(f32(2)),))
            started.set()
            finish.wait(10)

        with hook:
            thread = threading.Thread(target=work)
            thread.start()
            assert started.wait(10)
            finish.set()
            thread.join()
            Plus().apply((f32(1), f32(1)))
        # The hook registered in this thread is neither visible in nor called by the other.
        assert other['hooks'] == {}
        assert hook.calls('forward_pre') == ['Plus']

    def test_each_thread_registers_its_own(self):
        errors = []
        barrier = threading.Barrier(2)

        def work():
            try:
                with Recorder() as hook:  # same name in two threads at once: no conflict
                    barrier.wait(10)
                    Twice().apply((f32(1),))
                    barrier.wait(10)
                assert hook.calls('forward_pre') == ['Twice']
            except Exception as error:  # pragma: no cover - reported below
                errors.append(error)

        threads = [threading.Thread(target=work) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []


class TestLocalHooks:

    def test_add_hook_and_delete_hook(self):
        hook = Recorder()
        node = Twice()
        node.add_hook(hook)
        assert node.local_function_hooks == {'Recorder': hook}
        assert hook.events == [('added', node)]
        x = Variable(f32(2))
        y, = node.apply((x,))
        Twice().apply((x,))  # another node: not hooked
        y.grad = f32(2)
        y.backward()
        assert hook.calls('forward_pre') == ['Twice']
        assert hook.calls('forward_post') == ['Twice']
        assert hook.calls('backward_pre') == ['Twice']
        assert hook.calls('backward_post') == ['Twice']
        node.delete_hook('Recorder')
        assert hook.events[-1] == ('deleted', node)
        assert node.local_function_hooks == {}

    def test_custom_name(self):
        node = Twice()
        node.add_hook(Recorder(), name='mine')
        assert list(node.local_function_hooks) == ['mine']
        node.delete_hook('mine')

    def test_duplicate_name_raises_key_error(self):
        node = Twice()
        node.add_hook(Recorder())
        with pytest.raises(KeyError, match='Recorder'):
            node.add_hook(Recorder())
        with pytest.raises(KeyError, match='nothing'):
            node.delete_hook('nothing')

    def test_global_hooks_run_before_local_ones(self):
        order = []

        class Tagged(FunctionHook):
            def __init__(self, name):
                self.name = name

            def forward_preprocess(self, function, in_data):
                order.append(self.name)

        node = Twice()
        node.add_hook(Tagged('local'))
        with Tagged('global'):
            node.apply((f32(1),))
        assert order == ['global', 'local']

    def test_legacy_function_add_hook(self):
        class Square(catena.Function):
            def forward(self, inputs):
                return inputs[0] ** 2,

            def backward(self, inputs, grad_outputs):
                return 2 * inputs[0] * grad_outputs[0],

        hook = Recorder()
        f = Square()
        f.add_hook(hook)
        x = Variable(np.array([3.0], np.float32))
        y = f(x)
        y.backward()
        assert hook.calls('forward_pre') == ['Square']
        assert hook.calls('backward_pre') == ['Square']
        np.testing.assert_array_equal(x.grad, [6.0])
        f.delete_hook('Recorder')

    def test_legacy_function_keeps_its_hooks_until_applied(self):
        import gc

        class Identity(catena.Function):
            def forward(self, inputs):
                return inputs[0],

        class Counter(FunctionHook):
            name = 'Counter'
            forwards = 0

            def forward_preprocess(self, function, in_data):
                self.forwards += 1

        hook = Counter()
        f = Identity()
        f.add_hook(hook)  # nothing but f refers to its node now
        gc.collect()
        assert list(f.local_function_hooks) == ['Counter']
        y = f(Variable(f32(1)))
        assert hook.forwards == 1
        assert y.creator_node is f.node  # the graph owns the node from now on


def test_default_callbacks_do_nothing():
    hook = FunctionHook()
    assert hook.name == 'FunctionHook'
    with hook:
        x = Variable(f32(2))
        y, = Twice().apply((x,))
        y.grad = f32(2)
        y.backward()
    np.testing.assert_array_equal(x.grad, np.full(2, 2, np.float32))
