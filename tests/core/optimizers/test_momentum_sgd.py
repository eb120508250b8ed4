"""MomentumSGD: v = momentum * v - lr * grad; param += v."""

from __future__ import annotations

import copy
import pathlib
import pickle

import numpy
import pytest
from tests.core.optimizers import _rule_checks as checks

import catena
import catena.functions as F
import catena.links as L
from catena import optimizers

HYPER = {'lr': 0.1, 'momentum': 0.8}
_SNAPSHOT = (pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'
             / 'trainer_snapshot_iter7.npz')


def reference(param, grads, lr, momentum):
    history = []
    param, velocity = param.copy(), numpy.zeros_like(param)
    for grad in grads:
        velocity = momentum * velocity - lr * grad
        param = param + velocity
        history.append(param)
    return history


@pytest.mark.parametrize('dtype', checks.DTYPES)
def test_steps_follow_the_formula(dtype):
    checks.check_steps(optimizers.MomentumSGD, reference, HYPER, dtype, state_names=('v',))


def test_fits_a_linear_regression():
    checks.check_fits_linear(optimizers.MomentumSGD, {'lr': 0.05, 'momentum': 0.9})


@pytest.mark.parametrize('name, value', [('lr', 0.02), ('momentum', 0.5)])
def test_per_parameter_hyperparameters(name, value):
    checks.check_per_param_hyperparam(optimizers.MomentumSGD, reference, HYPER, name, value)


def test_signature_defaults_and_proxies():
    checks.check_signature_and_proxies(optimizers.MomentumSGD, optimizers.MomentumSGDRule,
                                       [('lr', 0.01), ('momentum', 0.9)])


def test_disabled_rule_leaves_the_parameter():
    checks.check_disabled(optimizers.MomentumSGD, HYPER)


def test_fp32_update_of_a_float16_parameter():
    checks.check_fp32_update(optimizers.MomentumSGD, reference, HYPER)


def test_static_loss_scaling_changes_nothing():
    checks.check_static_loss_scaling(optimizers.MomentumSGD, HYPER)


def test_save_and_load_continues_exactly():
    checks.check_save_and_load(optimizers.MomentumSGD, HYPER, state_names=('v',))


def test_missing_gradient_leaves_parameter_and_velocity():
    rule = optimizers.MomentumSGDRule(lr=0.5)
    param = catena.Variable(numpy.ones(3, numpy.float32))
    rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(3, numpy.float32))
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


class _MLP(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def test_loads_the_momentum_sgd_state_chainer_saved():
    # A Chainer 7.8.1 trainer snapshot after 7 MomentumSGD(lr=0.05) steps.
    serializers = pytest.importorskip('catena.serializers')
    model = L.Classifier(_MLP())
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
