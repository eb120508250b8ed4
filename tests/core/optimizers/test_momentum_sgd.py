"""MomentumSGD: v = momentum * v - lr * grad; param += v."""

from __future__ import annotations

import copy
import pickle

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
import catena.links as L
from catena import optimizers

# A Chainer 7.8.1 trainer snapshot after 7 MomentumSGD(lr=0.05) steps.
_SNAPSHOT = checks.CHAINER_DATA / 'trainer_snapshot_iter7.npz'


def reference(param, grads, lr, momentum):
    velocity = numpy.zeros_like(param)
    for grad in grads:
        velocity = momentum * velocity - lr * grad
        param = param + velocity
        yield param, {'v': velocity}


class TestMomentumSGD(checks.VelocityChecks):
    optimizer = optimizers.MomentumSGD
    rule = optimizers.MomentumSGDRule
    reference = staticmethod(reference)


def test_missing_gradient_leaves_the_velocity_at_zero():
    rule = optimizers.MomentumSGDRule(lr=0.5)
    param = catena.Variable(numpy.ones(3, numpy.float32))
    rule.update(param)
    numpy.testing.assert_array_equal(rule.state['v'], numpy.zeros(3, numpy.float32))


def test_update_works_in_place_with_one_reused_buffer():
    rule = optimizers.MomentumSGDRule(lr=0.5, momentum=0.5)
    data = numpy.ones(3, numpy.float32)
    param = catena.Variable(data, grad=numpy.ones(3, numpy.float32))
    rule.update(param)
    velocity, buffer = rule.state['v'], rule._step._array
    rule.update(param)
    assert param.array is data and rule.state['v'] is velocity
    assert rule._step._array is buffer
    # v: -0.5, then -0.75; param: 1 - 0.5 - 0.75
    numpy.testing.assert_array_equal(data, numpy.full(3, -0.25, numpy.float32))


def test_float64_hyperparameters_keep_a_float16_parameter_in_float16():
    rule = optimizers.MomentumSGDRule(lr=numpy.float64(0.5), momentum=numpy.float64(0.5))
    param = catena.Variable(numpy.ones(3, numpy.float16), grad=numpy.ones(3, numpy.float16))
    rule.update(param)
    assert param.dtype == numpy.float16 and rule.state['v'].dtype == numpy.float16
    numpy.testing.assert_array_equal(param.array, numpy.full(3, 0.5, numpy.float16))


@pytest.mark.parametrize('clone', [copy.deepcopy, lambda rule: pickle.loads(pickle.dumps(rule))])
def test_a_copied_rule_gets_its_own_work_buffer(clone):
    rule = optimizers.MomentumSGDRule(lr=0.5, momentum=0.5)
    param = catena.Variable(numpy.ones(3), grad=numpy.ones(3))
    rule.update(param)
    twin = clone(rule)
    assert twin._step._array is None
    twin_param = catena.Variable(param.array.copy(), grad=numpy.ones(3))
    rule.update(param)
    twin.update(twin_param)
    numpy.testing.assert_array_equal(twin_param.array, param.array)


def test_loads_the_momentum_sgd_state_chainer_saved():
    serializers = pytest.importorskip('catena.serializers')
    model = L.Classifier(checks.ChainerMLP())
    serializers.load_npz(str(_SNAPSHOT), model, path='updater/model:main/')
    optimizer = optimizers.MomentumSGD(lr=0.05).setup(model)
    serializers.load_npz(str(_SNAPSHOT), optimizer, path='updater/optimizer:main/')
    params = dict(model.namedparams())
    with numpy.load(_SNAPSHOT) as saved:
        assert optimizer.t == 7
        for name, param in params.items():
            key = f'updater/optimizer:main{name}'
            assert param.update_rule.t == int(saved[f'{key}/t']) == 7
            numpy.testing.assert_array_equal(param.update_rule.state['v'], saved[f'{key}/v'])
    assert any(numpy.abs(p.update_rule.state['v']).max() > 0 for p in params.values())
    velocity = {name: p.update_rule.state['v'].copy() for name, p in params.items()}
    before = {name: p.array.copy() for name, p in params.items()}

    x = numpy.load(_SNAPSHOT.parent / 'mlp_x.npy').astype(numpy.float32)
    optimizer.update(model, x, numpy.arange(len(x), dtype=numpy.int32) % 10)
    for name, param in params.items():
        expected_v = 0.9 * velocity[name] - 0.05 * param.grad
        numpy.testing.assert_allclose(param.update_rule.state['v'], expected_v, rtol=1e-6,
                                      atol=1e-7)
        numpy.testing.assert_allclose(param.array, before[name] + expected_v, rtol=1e-6,
                                      atol=1e-7)
