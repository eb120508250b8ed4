"""catena-cuda's fused optimizer updates against the core's ``update_core_cpu``.

On the CPU, the update kernels are put into the core's registry for
``numpy.ndarray`` and their bodies run through the test interpreter
(``_c_body``), so that ``UpdateRule.update`` drives them exactly as on a
GPU (state creation, hooks and fp32 master copies stay the core's); the
parameters and every state array must equal the generic update's, bit for
bit, after each of several steps. On a GPU, the real kernels are compared
with the generic CuPy update (``use_cupy_kernels='never'``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy
import pytest
from tests.cuda.kernels import _support

import catena
from catena.backends._numpy import CpuDevice
from catena.optimizers import (
    ada_delta,
    ada_grad,
    adam,
    corrected_momentum_sgd,
    momentum_sgd,
    msvag,
    nesterov_ag,
    rmsprop,
    rmsprop_graves,
    sgd,
    smorms3,
)

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda.kernels import _common  # noqa: E402

GPU = catena_cuda.available
needs_gpu = pytest.mark.skipif(not GPU, reason='needs CuPy and a CUDA GPU')

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPE = (3, 7)
STEPS = 5


class Case(NamedTuple):
    """An update rule with hyperparameters, and the kernel that should run it."""

    id: str
    rule: type
    hyper: dict[str, Any]
    spec: str


CASES = [
    Case('sgd', sgd.SGDRule, {'lr': 0.1}, 'catena_sgd'),
    Case('momentum_sgd', momentum_sgd.MomentumSGDRule, {'lr': 0.1, 'momentum': 0.9},
         'catena_momentum_sgd'),
    Case('momentum_sgd-0', momentum_sgd.MomentumSGDRule, {'lr': 0.05, 'momentum': 0.0},
         'catena_momentum_sgd'),
    Case('corrected_momentum_sgd', corrected_momentum_sgd.CorrectedMomentumSGDRule,
         {'lr': 0.1, 'momentum': 0.5}, 'catena_corrected_momentum_sgd'),
    Case('nesterov_ag', nesterov_ag.NesterovAGRule, {'lr': 0.05, 'momentum': 0.9},
         'catena_nesterov_ag'),
    Case('ada_grad', ada_grad.AdaGradRule, {'lr': 0.1}, 'catena_ada_grad'),
    Case('ada_grad-eps', ada_grad.AdaGradRule, {'lr': 0.01, 'eps': 1e-3}, 'catena_ada_grad'),
    Case('ada_delta', ada_delta.AdaDeltaRule, {}, 'catena_ada_delta'),
    Case('ada_delta-rho', ada_delta.AdaDeltaRule, {'rho': 0.5, 'eps': 1e-2}, 'catena_ada_delta'),
    Case('rmsprop', rmsprop.RMSpropRule, {'lr': 0.01, 'alpha': 0.9, 'eps': 1e-3},
         'catena_rmsprop'),
    Case('rmsprop-inside', rmsprop.RMSpropRule, {'eps': 1e-3, 'eps_inside_sqrt': True},
         'catena_rmsprop_eps_inside'),
    Case('rmsprop_graves', rmsprop_graves.RMSpropGravesRule, {'lr': 0.01},
         'catena_rmsprop_graves'),
    Case('smorms3', smorms3.SMORMS3Rule, {'lr': 0.01, 'eps': 1e-3}, 'catena_smorms3'),
    Case('smorms3-default', smorms3.SMORMS3Rule, {}, 'catena_smorms3'),
    Case('msvag', msvag.MSVAGRule, {'lr': 0.1, 'beta': 0.9}, 'catena_msvag'),
    Case('msvag-decay', msvag.MSVAGRule, {'weight_decay_rate': 0.01, 'eta': 0.5},
         'catena_msvag_decay'),
    Case('msvag-beta0', msvag.MSVAGRule, {'beta': 0.0}, 'catena_msvag'),
    Case('adam', adam.AdamRule, {}, 'catena_adam'),
    Case('adam-tuned', adam.AdamRule, {'alpha': 0.01, 'beta1': 0.5, 'beta2': 0.9, 'eps': 1e-4},
         'catena_adam'),
    Case('adamw', adam.AdamRule, {'weight_decay_rate': 0.01, 'eta': 0.5}, 'catena_adam'),
    Case('adam-eta', adam.AdamRule, {'eta': 2.0}, 'catena_adam'),
    Case('amsgrad', adam.AdamRule, {'amsgrad': True}, 'catena_adam_amsgrad'),
    Case('adabound', adam.AdamRule, {'adabound': True}, 'catena_adam'),
    Case('amsbound', adam.AdamRule, {'amsgrad': True, 'adabound': True, 'final_lr': 0.05,
                                     'gamma': 1e-2, 'weight_decay_rate': 0.1},
         'catena_adam_amsgrad'),
]

RULES = {
    sgd.SGDRule, momentum_sgd.MomentumSGDRule, corrected_momentum_sgd.CorrectedMomentumSGDRule,
    nesterov_ag.NesterovAGRule, ada_grad.AdaGradRule, ada_delta.AdaDeltaRule,
    rmsprop.RMSpropRule, rmsprop_graves.RMSpropGravesRule, smorms3.SMORMS3Rule,
    msvag.MSVAGRule, adam.AdamRule,
}


def _pairs() -> list[tuple[type, Any]]:
    return [pair for name in _support.OPTIMIZERS
            for pair in _support.module(f'optimizers.{name}').registrations()]


def _grads(dtype: Any, special: bool, seed: int = 0) -> list[numpy.ndarray | None]:
    """Gradients of the steps: column 0 always zero, one step without a gradient."""
    rng = numpy.random.default_rng(seed)
    grads: list[numpy.ndarray | None] = []
    for step in range(STEPS):
        grad = rng.normal(0, 1, SHAPE)
        grad[:, 0] = 0
        if special and step == 1:
            grad[0, 1:6] = [numpy.nan, numpy.inf, -numpy.inf, 1e4, -1e-8]
        grads.append(grad.astype(dtype))
    grads.insert(2, None)
    return grads


def _initial(dtype: Any, seed: int = 1) -> numpy.ndarray:
    return numpy.random.default_rng(seed).normal(0, 1, SHAPE).astype(dtype)


def _snapshot(rule: Any, param: Any) -> dict[str, Any]:
    arrays = {'param': param.array, **(rule.state or {})}
    return {name: catena_cuda.to_cpu(array).copy() for name, array in arrays.items()}


def _step(rule: Any, param: Any, grad: Any) -> dict[str, Any]:
    param.grad = None if grad is None else grad.copy()
    rule.update(param)
    return _snapshot(rule, param)


def _assert_same(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert actual.keys() == expected.keys()
    for name, want in expected.items():
        got = actual[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        numpy.testing.assert_array_equal(got, want, err_msg=name)


@pytest.fixture
def interpreted(monkeypatch: Any) -> Iterator[list[Any]]:
    """The update kernels, registered for NumPy arrays, with interpreted bodies."""
    launches = _support.interpret(monkeypatch)
    with _support.registered(_pairs(), numpy.ndarray, CpuDevice):
        yield launches


def _generic(case: Case) -> Any:
    return case.rule(**case.hyper)


# ---------------------------------------------------------------------------
# CPU: bodies interpreted on NumPy, driven by UpdateRule.update
# ---------------------------------------------------------------------------

def test_every_update_rule_has_a_kernel_and_cases() -> None:
    registered = {rule: update for rule, update in _pairs()}
    assert set(registered) == RULES
    assert {case.rule for case in CASES} == RULES
    specs = {spec.name for name in _support.OPTIMIZERS
             for spec in _support.module(f'optimizers.{name}').SPECS}
    assert specs == {case.spec for case in CASES}


@pytest.mark.parametrize('special', [False, True], ids=['finite', 'nan-inf'])
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_interpreted_updates_match_update_core_cpu(case: Case, dtype: Any, special: bool,
                                                   interpreted: list[Any]) -> None:
    kernel_rule, generic_rule = _generic(case), _generic(case)
    kernel_param = catena.Parameter(_initial(dtype))
    generic_param = catena.Parameter(_initial(dtype))
    before = _common.calls[case.spec]
    for step, grad in enumerate(_grads(dtype, special)):
        with numpy.errstate(all='ignore'):
            with catena.using_config('use_cupy_kernels', 'never'):
                expected = _step(generic_rule, generic_param, grad)
            launched = len(interpreted)
            actual = _step(kernel_rule, kernel_param, grad)
        assert len(interpreted) == launched + (grad is not None), f'step {step}'
        _assert_same(actual, expected)
    assert kernel_rule.t == generic_rule.t
    assert {launch.spec.name for launch in interpreted} == {case.spec}
    assert _common.calls[case.spec] == before + STEPS
    if case.rule is adam.AdamRule:
        assert kernel_rule.initial_alpha == generic_rule.initial_alpha


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
def test_adam_follows_hyperparameter_changes(dtype: Any, interpreted: list[Any]) -> None:
    # AdaBound's bounds scale with alpha / initial_alpha; amsgrad switched on later
    # falls back once (the generic update creates vhat), then runs its kernel.
    rules = [adam.AdamRule(adabound=True), adam.AdamRule(adabound=True)]
    params = [catena.Parameter(_initial(dtype)), catena.Parameter(_initial(dtype))]
    specs = []
    for step, grad in enumerate(_grads(dtype, special=False)):
        if step == 3:
            for rule in rules:
                rule.hyperparam.alpha = 0.01
                rule.hyperparam.amsgrad = True
                rule.hyperparam.weight_decay_rate = 0.05
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _step(rules[1], params[1], grad)
        launched = len(interpreted)
        actual = _step(rules[0], params[0], grad)
        specs.append([launch.spec.name for launch in interpreted[launched:]])
        _assert_same(actual, expected)
    # Steps 0, 1: Adam; 2: no gradient; 3: amsgrad on, falls back; 4, 5: AMSGrad.
    assert specs == [['catena_adam'], ['catena_adam'], [], [], ['catena_adam_amsgrad'],
                     ['catena_adam_amsgrad']]
    assert rules[0].initial_alpha == rules[1].initial_alpha == 0.001


@pytest.mark.parametrize('case', [c for c in CASES if c.id in ('adam', 'sgd', 'rmsprop')],
                         ids=lambda c: c.id)
def test_fp32_update_of_float16_parameters(case: Case, interpreted: list[Any]) -> None:
    rules = [_generic(case), _generic(case)]
    params = [catena.Parameter(_initial(numpy.float16)) for _ in rules]
    for rule in rules:
        rule.use_fp32_update()
    for grad in _grads(numpy.float16, special=False):
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _step(rules[1], params[1], grad)
        actual = _step(rules[0], params[0], grad)
        _assert_same(actual, expected)
        assert params[0].dtype == numpy.float16
    assert interpreted and all(launch.inputs[0].dtype == numpy.float32
                               for launch in interpreted)


def test_no_gradient_is_a_no_op(interpreted: list[Any]) -> None:
    rule = adam.AdamRule()
    param = catena.Parameter(_initial(numpy.float32))
    before = param.array.copy()
    rule.update(param)
    assert interpreted == []
    numpy.testing.assert_array_equal(param.array, before)
    assert rule.t == 1


@pytest.mark.parametrize('case', [c for c in CASES if c.id in ('adam', 'momentum_sgd')],
                         ids=lambda c: c.id)
def test_declines_state_of_another_dtype(case: Case, interpreted: list[Any]) -> None:
    # A state array of another dtype (say, loaded from a file written by another
    # program) is left to the generic update.
    rules = [_generic(case), _generic(case)]
    params = [catena.Parameter(_initial(numpy.float32)) for _ in rules]
    for step, grad in enumerate(_grads(numpy.float32, special=False)):
        if step == 1:
            for rule in rules:
                rule.state['v'] = rule.state['v'].astype(numpy.float64)
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _step(rules[1], params[1], grad)
        launched = len(interpreted)
        actual = _step(rules[0], params[0], grad)
        assert len(interpreted) == launched + (step == 0)
        _assert_same(actual, expected)


@pytest.mark.parametrize('make, dtype, message', [
    (lambda: adam.AdamRule(eps=1e-50), numpy.float32, 'eps of Adam'),
    (lambda: adam.AdamRule(eps=1e-50), numpy.float16, 'too small for float32'),
    (lambda: rmsprop.RMSpropRule(), numpy.float16, 'eps of RMSprop'),
    (lambda: msvag.MSVAGRule(beta=1.0), numpy.float32, 'beta must be'),
], ids=['adam-float32', 'adam-float16', 'rmsprop-float16', 'msvag-beta'])
def test_raises_the_errors_of_update_core_cpu(make: Any, dtype: Any, message: str,
                                              interpreted: list[Any]) -> None:
    errors = []
    for level in ('never', 'auto'):
        rule = make()
        param = catena.Parameter(_initial(dtype))
        param.grad = _initial(dtype, seed=5)
        before = param.array.copy()
        with catena.using_config('use_cupy_kernels', level):
            with pytest.raises(ValueError, match=message) as error:
                rule.update(param)
        numpy.testing.assert_array_equal(param.array, before)
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert interpreted == []


def test_adam_keeps_float16_state_and_steps_in_float32(interpreted: list[Any]) -> None:
    rule = adam.AdamRule()
    param = catena.Parameter(_initial(numpy.float16))
    param.grad = _initial(numpy.float16, seed=2)
    rule.update(param)
    launch, = interpreted
    assert launch.work == numpy.float32
    assert all(state.dtype == numpy.float16 for state in rule.state.values())
    names = [name for _, name in launch.spec.parameters()]
    values = dict(zip(names, (*launch.inputs, *launch.outputs)))
    assert values['eps'].dtype == numpy.float32 and values['eps'] == numpy.float32(1e-8)
    assert values['keep'].dtype == numpy.float16 and values['keep'] == 1
    assert values['lower'] == -numpy.inf and values['upper'] == numpy.inf
    assert values['alpha_t'] == numpy.float32(rule.alpha_t)


# ---------------------------------------------------------------------------
# GPU: the real kernels against the generic CuPy update
# ---------------------------------------------------------------------------

@pytest.fixture
def gpu_kernels() -> Iterator[Any]:
    """CuPy, with the update kernels registered (even before MODULES lists them)."""
    import cupy

    from catena_cuda.device import GpuDevice

    with _support.registered(_pairs(), cupy.ndarray, GpuDevice):
        yield cupy


def _gpu_close(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    assert actual.keys() == expected.keys()
    for name, want in expected.items():
        got = actual[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        # Same operations, same roundings, no FMA contraction: equal up to libm's last bits.
        rtol = {numpy.float16: 2e-3, numpy.float32: 1e-6, numpy.float64: 1e-14}[got.dtype.type]
        numpy.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, equal_nan=True,
                                      err_msg=name)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize('special', [False, True], ids=['finite', 'nan-inf'])
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('case', CASES, ids=lambda c: c.id)
def test_gpu_updates_match_the_generic_cupy_update(case: Case, dtype: Any, special: bool,
                                                   gpu_kernels: Any, monkeypatch: Any) -> None:
    cupy = gpu_kernels
    log = _support.count_launches(monkeypatch)
    kernel_rule, generic_rule = _generic(case), _generic(case)
    kernel_param = catena.Parameter(cupy.asarray(_initial(dtype)))
    generic_param = catena.Parameter(cupy.asarray(_initial(dtype)))
    for grad in _grads(dtype, special):
        grad = None if grad is None else cupy.asarray(grad)
        calls = _common.calls[case.spec]
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _step(generic_rule, generic_param, grad)
        assert _common.calls[case.spec] == calls
        launched = len(log)
        actual = _step(kernel_rule, kernel_param, grad)
        ran = grad is not None
        assert log[launched:] == [case.spec] * ran  # one update, one kernel launch
        assert _common.calls[case.spec] == calls + ran
        assert isinstance(kernel_param.array, cupy.ndarray)
        _gpu_close(actual, expected)


@pytest.mark.gpu
@needs_gpu
def test_gpu_fp32_update_of_float16_parameters(gpu_kernels: Any) -> None:
    cupy = gpu_kernels
    rules = [adam.AdamRule(weight_decay_rate=0.01), adam.AdamRule(weight_decay_rate=0.01)]
    params = [catena.Parameter(cupy.asarray(_initial(numpy.float16))) for _ in rules]
    for rule in rules:
        rule.use_fp32_update()
    before = _common.calls['catena_adam']
    for grad in _grads(numpy.float16, special=False):
        grad = None if grad is None else cupy.asarray(grad)
        with catena.using_config('use_cupy_kernels', 'never'):
            expected = _step(rules[1], params[1], grad)
        actual = _step(rules[0], params[0], grad)
        _gpu_close(actual, expected)
    assert _common.calls['catena_adam'] == before + STEPS


@pytest.mark.gpu
@needs_gpu
def test_gpu_raises_the_errors_of_update_core_cpu(gpu_kernels: Any) -> None:
    cupy = gpu_kernels
    errors = []
    for level in ('never', 'auto'):
        rule = adam.AdamRule(eps=1e-50)
        param = catena.Parameter(cupy.asarray(_initial(numpy.float32)))
        param.grad = cupy.asarray(_initial(numpy.float32, seed=5))
        with catena.using_config('use_cupy_kernels', level):
            with pytest.raises(ValueError, match='eps of Adam') as error:
                rule.update(param)
        errors.append(str(error.value))
    assert errors[0] == errors[1]
