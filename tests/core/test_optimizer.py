"""The optimizer machinery: hyperparameters, rules, hooks, epochs and loss scaling."""

from __future__ import annotations

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import optimizer as optimizer_module
from catena.optimizer import GradientMethod, Hyperparameter, HyperparameterProxy, UpdateRule


class _PlainRule(UpdateRule):
    """param -= lr * grad, counting its state updates."""

    def init_state(self, param):
        self.state['count'] = param.xp.zeros((), dtype=numpy.int64)

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        self.state['count'] += 1
        param.array -= param.dtype.type(self.hyperparam.lr) * grad


class _Plain(GradientMethod):
    lr = HyperparameterProxy('lr')

    def __init__(self, lr=0.1):
        super().__init__()
        self.hyperparam.lr = lr

    def create_update_rule(self):
        return _PlainRule(self.hyperparam)


def _model():
    return L.Linear(3, 2, initialW=numpy.arange(6).reshape(2, 3) / 6)


def _loss(model, x):
    return F.sum(model(x) ** 2)


def _x(dtype=numpy.float32):
    return numpy.linspace(-1, 1, 12, dtype=dtype).reshape(4, 3)


def _grads(model, x):
    model.cleargrads()
    _loss(model, x).backward()
    return {name: p.grad.copy() for name, p in model.namedparams()}


# ---------------------------------------------------------------- hyperparameters

def test_hyperparameter_falls_back_to_its_parent():
    parent = Hyperparameter()
    parent.lr = 0.1
    parent.momentum = 0.9
    child = Hyperparameter(parent)
    child.lr = 0.5
    assert (child.lr, child.momentum) == (0.5, 0.9)
    assert child.get_dict() == {'lr': 0.5, 'momentum': 0.9}
    assert child.parent is parent
    assert 'lr=0.5' in repr(child)
    with pytest.raises(AttributeError, match='beta'):
        child.beta


def test_proxy_reads_and_writes_the_optimizer_hyperparameter():
    opt = _Plain(lr=0.2)
    assert opt.lr == 0.2
    opt.lr = 0.3
    assert opt.hyperparam.lr == 0.3
    assert isinstance(_Plain.lr, HyperparameterProxy)


def test_per_parameter_hyperparameter_changes_only_that_parameter():
    model = _model()
    opt = _Plain(lr=0.1).setup(model)
    model.W.update_rule.hyperparam.lr = 0.0
    W0, b0 = model.W.array.copy(), model.b.array.copy()
    grads = _grads(model, _x())
    opt.update()
    numpy.testing.assert_array_equal(model.W.array, W0)
    numpy.testing.assert_allclose(model.b.array, b0 - 0.1 * grads['/b'], rtol=1e-6)


# ------------------------------------------------------------------------ update

def test_update_with_lossfun_matches_the_formula_and_counts():
    model = _model()
    opt = _Plain(lr=0.1).setup(model)
    x = _x()
    expected = {name: p.array - 0.1 * g
                for (name, p), g in zip(model.namedparams(), _grads(model, x).values())}
    opt.update(_loss, model, x)
    for name, param in model.namedparams():
        numpy.testing.assert_allclose(param.array, expected[name], rtol=1e-6)
    assert opt.t == 1
    assert model.W.update_rule.t == 1
    assert int(model.W.update_rule.state['count']) == 1


def test_update_without_lossfun_uses_present_gradients_and_zero_fills_missing():
    model = _model()
    opt = _Plain().setup(model)
    model.cleargrads()
    opt.update()
    assert model.W.grad is not None and not model.W.grad.any()
    assert int(model.W.update_rule.state['count']) == 1


def test_setup_needs_a_link_and_hooks_need_setup():
    opt = _Plain()
    with pytest.raises(TypeError, match='catena.Link'):
        opt.setup(object())
    with pytest.raises(RuntimeError, match='setup'):
        opt.add_hook(lambda o: None, name='h')
    with pytest.raises(RuntimeError, match='setup'):
        opt.update()


def test_disabled_parameters_are_not_updated():
    model = catena.Sequential(L.Linear(3, 3), F.relu, L.Linear(3, 2))
    opt = _Plain().setup(model)
    model[0].disable_update()
    frozen = [p.array.copy() for p in model[0].params()]
    trained = [p.array.copy() for p in model[2].params()]
    opt.update(_loss, model, _x())
    for before, param in zip(frozen, model[0].params()):
        numpy.testing.assert_array_equal(param.array, before)
        assert param.update_rule.t == 0
    assert any((before != param.array).any() for before, param in zip(trained, model[2].params()))
    model[0].enable_update()
    opt.update(_loss, model, _x())
    assert model[0].W.update_rule.t == 1


def test_new_epoch_and_auto_mode():
    opt = _Plain().setup(_model())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError, match='use_auto_new_epoch'):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match='updater counts'):
        opt.new_epoch()


# ------------------------------------------------------------------------- hooks

class _Recorder:
    def __init__(self, log, name, timing, each=False):
        self.log, self.name, self.timing, self.call_for_each_param = log, name, timing, each

    def __call__(self, *args):
        self.log.append((self.name, len(args)))


def test_hooks_run_in_order_with_their_timing():
    log = []
    model = _model()
    opt = _Plain().setup(model)
    opt.add_hook(_Recorder(log, 'post', 'post'))
    opt.add_hook(_Recorder(log, 'pre', 'pre'))
    opt.add_hook(_Recorder(log, 'each', 'pre', each=True))
    model.W.update_rule.add_hook(_Recorder(log, 'rule', 'post'))
    opt.update(_loss, model, _x())
    assert log == [('pre', 1), ('each', 2), ('each', 2), ('rule', 2), ('post', 1)]


def test_hook_registration_errors():
    opt = _Plain().setup(_model())
    opt.add_hook(_Recorder([], 'h', 'pre'))
    with pytest.raises(KeyError, match="'h' already exists"):
        opt.add_hook(_Recorder([], 'h', 'post'))
    with pytest.raises(ValueError, match='timing'):
        opt.add_hook(_Recorder([], 'g', 'pre'), timing='later')
    with pytest.raises(TypeError, match='callable'):
        opt.add_hook(3, name='x')
    with pytest.warns(FutureWarning, match='timing'):
        opt.add_hook(lambda o: None, name='untimed')
    opt.remove_hook('h')
    with pytest.raises(KeyError, match="no hook named 'h'"):
        opt.remove_hook('h')


def test_a_hook_that_clears_gradients_leaves_zero_gradients():
    model = _model()
    opt = _Plain().setup(model)

    def clear(optimizer):
        optimizer.target.cleargrads()

    opt.add_hook(clear, timing='pre')
    W0 = model.W.array.copy()
    opt.update(_loss, model, _x())
    numpy.testing.assert_array_equal(model.W.array, W0)


# ------------------------------------------------------------------ loss scaling

def test_static_loss_scaling_gives_the_unscaled_update():
    x = _x()
    plain, scaled = _model(), _model()
    _Plain().setup(plain).update(_loss, plain, x)
    opt = _Plain().setup(scaled)
    opt.loss_scaling(scale=128.0)
    opt.update(_loss, scaled, x)
    for a, b in zip(plain.params(), scaled.params()):
        numpy.testing.assert_allclose(b.array, a.array, rtol=1e-6)
    assert scaled.W._loss_scale is None


def test_loss_scale_arguments_are_checked():
    opt = _Plain()
    with pytest.raises(ValueError, match='scale must be a positive'):
        opt.loss_scaling(scale=0)
    with pytest.raises(ValueError, match='interval'):
        opt.loss_scaling(interval=0)


def test_dynamic_loss_scaling_skips_overflowing_steps_and_adapts():
    model = _model()
    opt = _Plain().setup(model)
    opt.loss_scaling(interval=4)
    x = _x()
    opt.update(_loss, model, x)
    opt.update(_loss, model, x)
    assert opt._loss_scale == 4.0  # doubles each step before any overflow

    W = model.W.array.copy()
    model.cleargrads()
    model.W.grad = numpy.full_like(W, numpy.inf)
    with pytest.warns(RuntimeWarning, match='non-finite gradients in /W'):
        opt.update()
    numpy.testing.assert_array_equal(model.W.array, W)
    assert not opt.is_safe_to_update()
    assert opt._loss_scale == 2.0
    opt.update(_loss, model, x)
    assert opt.is_safe_to_update()
    assert opt._loss_scale == pytest.approx(2.0 * 2 ** 0.25)


def test_float16_with_fp32_update_keeps_a_master_copy():
    x = _x(numpy.float16)
    half = L.Linear(3, 2, initialW=numpy.arange(6).reshape(2, 3) / 6)
    half.W.array = half.W.array.astype(numpy.float16)
    half.b.array = half.b.array.astype(numpy.float16)
    opt = _Plain(lr=1e-4).setup(half)
    opt.use_fp32_update()
    master_before = half.W.array.astype(numpy.float32)
    grads = _grads(half, x)
    opt.update()
    master = half.W.update_rule._fp32_param.array
    assert master.dtype == numpy.float32
    expected = master_before - numpy.float32(1e-4) * grads['/W'].astype(numpy.float32)
    numpy.testing.assert_allclose(master, expected, rtol=1e-6)
    numpy.testing.assert_array_equal(half.W.array, master.astype(numpy.float16))
    assert half.W.array.dtype == numpy.float16


def test_update_rule_state_moves_with_the_parameter():
    model = _model()
    opt = _Plain().setup(model)
    opt.update(_loss, model, _x())
    rule = model.W.update_rule
    rule.state['count'] = numpy.asarray(rule.state['count'])
    model.to_device('@numpy')
    opt.update(_loss, model, _x())
    assert int(rule.state['count']) == 2


@pytest.mark.parametrize('name', ['WeightDecay', 'Lasso', 'GradientClipping',
                                  'GradientNoise', 'GradientHardClipping'])
def test_deprecated_hook_aliases_warn_and_resolve(name):
    import catena.optimizer_hooks

    with pytest.warns(DeprecationWarning, match=f'catena.optimizer_hooks.{name} instead'):
        moved = getattr(optimizer_module, name)
    assert moved is getattr(catena.optimizer_hooks, name)
    with pytest.raises(AttributeError, match='Missing'):
        optimizer_module.Missing


class TestChainerUpdateRuleSemantics:

    def test_uninitialized_parameters_go_to_update_core_cpu(self):
        calls = []

        class Rule(UpdateRule):
            def update_core_cpu(self, param):
                calls.append('cpu')

            def update_core_gpu(self, param):
                calls.append('gpu')

        Rule().update(catena.Parameter())
        assert calls == ['cpu']

    def test_update_core_chainerx_runs_the_generic_update(self):
        seen = []

        class Rule(UpdateRule):
            def update_core(self, param):
                seen.append(param)

        param = catena.Parameter(numpy.ones(2, numpy.float32))
        Rule().update_core_chainerx(param)
        assert seen == [param]

    def test_a_hook_without_a_string_timing_runs_before(self):
        class Hook:
            timing = object()  # not a timing declaration
            name = 'h'

            def __call__(self, rule, param):
                order.append('hook')

        order = []

        class Rule(UpdateRule):
            def update_core_cpu(self, param):
                order.append('update')

        rule = Rule()
        with pytest.warns(FutureWarning, match='timing'):
            rule.add_hook(Hook())
        rule.update(catena.Parameter(numpy.ones(1, numpy.float32)))
        assert order == ['hook', 'update']
        with pytest.raises(ValueError, match="'pre' or 'post'"):
            Hook.timing = 'later'
            rule.add_hook(Hook(), name='other')

    def test_loading_state_probes_init_state_on_the_rule_itself(self):
        rule = UpdateRule()

        def init_state(param):
            rule.state['a'] = numpy.zeros(1)  # reaches the rule through a closure

        rule.init_state = init_state
        values = {'t': 3, 'a': numpy.array([5.0])}
        serializer = catena.serializers.npz.NpzDeserializer(values)
        rule.serialize(serializer)
        assert rule.t == 3 and rule.state['a'][0] == 5.0

    def test_fp32_update_of_an_uninitialized_half_parameter(self):
        seen = []

        def initializer(array):
            raise AssertionError('never called')

        initializer.dtype = numpy.float16
        param = catena.Parameter(initializer)
        rule = UpdateRule()
        rule.update_core = lambda p: seen.append(p.dtype)
        rule.use_fp32_update()
        rule.update(param)
        assert seen == [numpy.float32] and param.array is None
