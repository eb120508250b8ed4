"""Chainer's step-wise backprop helpers (catena._backprop_utils)."""

import numpy as np
import pytest

import catena
from catena import Variable, _backprop_utils


class Doubler(catena.FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class AccumulatingDoubler(Doubler):
    def backward_accumulate(self, indexes, grad_outputs, grad_inputs):
        gx = grad_outputs[0] * 2
        return (gx if grad_inputs[0] is None else gx + grad_inputs[0]),


def _applied(node_class):
    x = Variable(np.ones(2, np.float32))
    node = node_class()
    node.apply((x,))
    return node, x


def test_reduce_sums_in_place():
    grads = [Variable(np.ones(2, np.float32)), Variable(np.full(2, 2.0, np.float32))]
    total = _backprop_utils._reduce(grads)
    np.testing.assert_array_equal(total.array, [3.0, 3.0])
    assert len(grads) == 1 and grads[0] is total
    assert _backprop_utils._reduce([]) is None


@pytest.mark.parametrize('node_class', [Doubler, AccumulatingDoubler])
@pytest.mark.parametrize('lazy', [False, True])
def test_backprop_step_adds_to_the_gradient_lists(node_class, lazy):
    node, x = _applied(node_class)
    existing = Variable(np.full(2, 10.0, np.float32))
    grad_inputs = {x.node: [existing]}
    gy = Variable(np.ones(2, np.float32))
    with catena.using_config('lazy_grad_sum', lazy):
        _backprop_utils.backprop_step(node, (0,), (gy,), grad_inputs, False)
    total = _backprop_utils._reduce(grad_inputs[x.node])
    np.testing.assert_array_equal(total.array, [12.0, 12.0])


def test_backprop_step_checks_gradients_in_debug_mode():
    class Wrong(Doubler):
        def backward(self, indexes, grad_outputs):
            return Variable(np.ones(3, np.float32)),

    node, x = _applied(Wrong)
    with pytest.raises(ValueError, match='shape of gradients returned from backward'):
        _backprop_utils.backprop_step(node, (0,), (Variable(np.ones(2, np.float32)),),
                                      {x.node: []}, True)
