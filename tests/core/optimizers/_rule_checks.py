"""Checks shared by the tests of the SGD family and M-SVAG.

Every optimizer must pass the same eight checks; each test module supplies
its optimizer class and an independent NumPy transcription of its update
formula (``reference``), and calls the functions below.

A ``reference`` is ``reference(param, grads, **hyper) -> list of arrays``: the
parameter after each of the steps driven by ``grads``, computed in float64
from the initial value ``param``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L

Reference = Callable[..., list]
Draw = Callable[[numpy.random.Generator, tuple], numpy.ndarray]

TOLERANCES = {
    numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
    numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
    numpy.float64: {'atol': 1e-12, 'rtol': 1e-12},
}
DTYPES = tuple(TOLERANCES)
STEPS = 3


def normal_draw(rng: numpy.random.Generator, shape: tuple) -> numpy.ndarray:
    """Standard normal values (the default draw of parameters and gradients)."""
    return rng.standard_normal(shape)


class TwoParams(catena.Link):
    """A link with two parameters, ``a`` (2x3) and ``b`` (3,)."""

    def __init__(self, a: numpy.ndarray, b: numpy.ndarray) -> None:
        super().__init__()
        with self.init_scope():
            self.a = catena.Parameter(a.copy())
            self.b = catena.Parameter(b.copy())


def make_link(dtype: Any, draw: Draw = normal_draw, seed: int = 0) -> TwoParams:
    rng = numpy.random.default_rng(seed)
    return TwoParams(draw(rng, (2, 3)).astype(dtype), draw(rng, (3,)).astype(dtype))


def make_grads(dtype: Any, draw: Draw = normal_draw, steps: int = STEPS,
               seed: int = 1) -> list[dict[str, numpy.ndarray]]:
    rng = numpy.random.default_rng(seed)
    return [{'a': draw(rng, (2, 3)).astype(dtype), 'b': draw(rng, (3,)).astype(dtype)}
            for _ in range(steps)]


def run_steps(optimizer: Any, link: TwoParams,
              grads: Sequence[dict[str, numpy.ndarray]]) -> list[dict[str, numpy.ndarray]]:
    """Sets the gradients and calls ``optimizer.update()`` once per entry of ``grads``."""
    history = []
    for grad in grads:
        link.a.grad = grad['a'].copy()
        link.b.grad = grad['b'].copy()
        optimizer.update()
        history.append({'a': link.a.array.copy(), 'b': link.b.array.copy()})
    return history


def expected_history(reference: Reference, link: TwoParams,
                     grads: Sequence[dict[str, numpy.ndarray]],
                     hyper: dict[str, Any]) -> dict[str, list[numpy.ndarray]]:
    """The reference trajectory of each parameter of ``link`` (before any update)."""
    return {name: reference(getattr(link, name).array.astype(numpy.float64),
                            [g[name].astype(numpy.float64) for g in grads], **hyper)
            for name in ('a', 'b')}


def assert_history(actual: list[dict[str, numpy.ndarray]],
                   expected: dict[str, list[numpy.ndarray]], dtype: Any,
                   names: Sequence[str] = ('a', 'b')) -> None:
    for step, params in enumerate(actual):
        for name in names:
            assert params[name].dtype == dtype, (step, name)
            numpy.testing.assert_allclose(params[name], expected[name][step],
                                          err_msg=f'{name} after step {step + 1}',
                                          **TOLERANCES[dtype])


# ------------------------------------------------------------------ 1. formula

def check_steps(cls: type, reference: Reference, hyper: dict[str, Any], dtype: Any,
                state_names: Sequence[str], draw: Draw = normal_draw) -> None:
    """A few steps match ``reference``; the state keeps Chainer's names and the dtype."""
    link = make_link(dtype, draw)
    grads = make_grads(dtype, draw)
    start = link.a.array.astype(numpy.float64)
    expected = expected_history(reference, link, grads, hyper)
    optimizer = cls(**hyper).setup(link)
    actual = run_steps(optimizer, link, grads)
    assert_history(actual, expected, dtype)
    moved = numpy.abs(actual[-1]['a'].astype(numpy.float64) - start).max()
    assert moved > 10 * TOLERANCES[dtype]['atol'], 'the steps are too small to test anything'
    for param in link.params():
        rule = param.update_rule
        assert rule.t == STEPS
        assert sorted(rule.state) == sorted(state_names)
        for value in rule.state.values():
            assert value.dtype == dtype and value.shape == param.shape


# --------------------------------------------------------------- 2. regression

def check_fits_linear(cls: type, hyper: dict[str, Any], steps: int = 300) -> None:
    """Drives a Linear link fitting ``y = x W* + b*`` to a low loss."""
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((64, 3)).astype(numpy.float32)
    true_w = numpy.array([[1.5, -2.0, 0.5], [0.3, 0.8, -1.2]], dtype=numpy.float32)
    true_b = numpy.array([0.25, -0.75], dtype=numpy.float32)
    y = x @ true_w.T + true_b
    model = L.Linear(3, 2, initialW=numpy.zeros((2, 3), numpy.float32), initial_bias=0)
    optimizer = cls(**hyper).setup(model)

    def lossfun() -> Any:
        return F.mean_squared_error(model(x), y)

    first = float(lossfun().array)
    for _ in range(steps):
        optimizer.update(lossfun)
    last = float(lossfun().array)
    assert first > 1.0
    assert last < 1e-4, f'loss {first} -> {last} after {steps} steps'
    assert optimizer.t == steps


# ------------------------------------------------------- 3. per-parameter lr

def check_per_param_hyperparam(cls: type, reference: Reference, hyper: dict[str, Any],
                               name: str, value: float) -> None:
    """A hyperparameter set on one parameter's rule changes only that parameter."""
    dtype = numpy.float64
    link = make_link(dtype)
    grads = make_grads(dtype)
    expected_b = expected_history(reference, link, grads, hyper)['b']
    expected_a = expected_history(reference, link, grads, {**hyper, name: value})['a']
    optimizer = cls(**hyper).setup(link)
    setattr(link.a.update_rule.hyperparam, name, value)
    actual = run_steps(optimizer, link, grads)
    assert_history(actual, {'a': expected_a, 'b': expected_b}, dtype)
    assert getattr(optimizer.hyperparam, name) == hyper[name]
    assert getattr(link.b.update_rule.hyperparam, name) == hyper[name]


# ------------------------------------------------------------------- 4. proxies

def check_signature_and_proxies(cls: type, rule_cls: type,
                                defaults: Sequence[tuple[str, Any]]) -> None:
    """Chainer's signature and defaults; proxies read and write ``hyperparam``."""
    signature = inspect.signature(cls)
    assert [(p.name, p.default) for p in signature.parameters.values()] == list(defaults)
    rule_signature = inspect.signature(rule_cls)
    assert list(rule_signature.parameters) == ['parent_hyperparam'] + [n for n, _ in defaults]

    optimizer = cls()
    for index, (name, default) in enumerate(defaults):
        assert getattr(optimizer, name) == default
        assert getattr(optimizer.hyperparam, name) == default
        new_value = 0.125 + index / 16
        setattr(optimizer, name, new_value)
        assert getattr(optimizer.hyperparam, name) == new_value
        rule = optimizer.create_update_rule()
        assert isinstance(rule, rule_cls)
        assert getattr(rule.hyperparam, name) == new_value
        setattr(optimizer.hyperparam, name, default)
        assert getattr(optimizer, name) == default
        assert getattr(rule.hyperparam, name) == default

    # A rule without a parent falls back to the optimizer's defaults; its own
    # keyword arguments override them.
    standalone = rule_cls()
    own = rule_cls(**{name: 0.5 for name, _ in defaults})
    for name, default in defaults:
        assert getattr(standalone.hyperparam, name) == default
        assert getattr(own.hyperparam, name) == 0.5


# --------------------------------------------------------------- 5. disabled

def check_disabled(cls: type, hyper: dict[str, Any]) -> None:
    """``link.disable_update()`` after setup freezes the parameters; enabling resumes."""
    link = make_link(numpy.float32)
    grads = make_grads(numpy.float32)
    before = {name: param.array.copy() for name, param in link.namedparams()}
    optimizer = cls(**hyper).setup(link)
    link.disable_update()
    run_steps(optimizer, link, grads[:2])
    for name, param in link.namedparams():
        numpy.testing.assert_array_equal(param.array, before[name])
        assert param.update_rule.state is None and param.update_rule.t == 0
    link.enable_update()
    run_steps(optimizer, link, grads[2:])
    for name, param in link.namedparams():
        assert not numpy.array_equal(param.array, before[name]), name


# ------------------------------------------------------------ 6. fp32 update

def check_fp32_update(cls: type, reference: Reference, hyper: dict[str, Any],
                      draw: Draw = normal_draw) -> None:
    """A float16 parameter is updated through a float32 master copy."""
    link = make_link(numpy.float16, draw)
    grads = make_grads(numpy.float16, draw)
    expected = expected_history(reference, link, grads, hyper)
    optimizer = cls(**hyper)
    optimizer.use_fp32_update()
    optimizer.setup(link)
    run_steps(optimizer, link, grads)
    for name in ('a', 'b'):
        param = getattr(link, name)
        master = param.update_rule._fp32_param
        assert param.dtype == numpy.float16 and master.dtype == numpy.float32
        numpy.testing.assert_allclose(master.array, expected[name][-1],
                                      **TOLERANCES[numpy.float32])
        numpy.testing.assert_array_equal(param.array, master.array.astype(numpy.float16))
        for value in param.update_rule.state.values():
            assert value.dtype == numpy.float32


# ------------------------------------------------------------ 7. loss scaling

def _regression_setup(cls: type, hyper: dict[str, Any]) -> tuple[Any, Any, Callable]:
    rng = numpy.random.default_rng(5)
    x = rng.standard_normal((16, 3)).astype(numpy.float32)
    y = rng.standard_normal((16, 2)).astype(numpy.float32)
    model = L.Linear(3, 2, initialW=rng.standard_normal((2, 3)).astype(numpy.float32),
                     initial_bias=rng.standard_normal(2).astype(numpy.float32))
    optimizer = cls(**hyper).setup(model)
    return model, optimizer, lambda: F.mean_squared_error(model(x), y)


def check_static_loss_scaling(cls: type, hyper: dict[str, Any]) -> None:
    """A static loss scale changes nothing in the updates."""
    plain_model, plain, plain_loss = _regression_setup(cls, hyper)
    scaled_model, scaled, scaled_loss = _regression_setup(cls, hyper)
    scaled.loss_scaling(scale=256.0)
    start = plain_model.W.array.copy()
    for _ in range(3):
        plain.update(plain_loss)
        scaled.update(scaled_loss)
    assert not numpy.allclose(plain_model.W.array, start)
    for name, param in plain_model.namedparams():
        other = dict(scaled_model.namedparams())[name]
        numpy.testing.assert_allclose(other.array, param.array, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------- 8. save and load

def _dict_serializers() -> tuple[type, type]:
    serializer = pytest.importorskip('catena.serializer')

    class DictSerializer(serializer.Serializer):
        def __init__(self, target: dict[str, Any], path: str = '') -> None:
            self.target, self.path = target, path

        def __getitem__(self, key: str) -> Any:
            return DictSerializer(self.target, f'{self.path}{key}/')

        def __call__(self, key: str, value: Any) -> Any:
            self.target[self.path + key] = copy.deepcopy(value)
            return value

    class DictDeserializer(serializer.Deserializer):
        def __init__(self, source: dict[str, Any], path: str = '') -> None:
            self.source, self.path = source, path

        def __getitem__(self, key: str) -> Any:
            return DictDeserializer(self.source, f'{self.path}{key}/')

        def __call__(self, key: str, value: Any) -> Any:
            stored = self.source[self.path + key]
            if value is None:
                return copy.deepcopy(stored)
            if isinstance(value, numpy.ndarray):
                numpy.copyto(value, stored)
                return value
            return type(value)(stored)

    return DictSerializer, DictDeserializer


def check_save_and_load(cls: type, hyper: dict[str, Any], state_names: Sequence[str]) -> None:
    """A loaded optimizer continues exactly like the uninterrupted one."""
    saver, loader = _dict_serializers()
    grads = make_grads(numpy.float32, steps=5)

    uninterrupted = make_link(numpy.float32)
    whole = run_steps(cls(**hyper).setup(uninterrupted), uninterrupted, grads)

    first_half = make_link(numpy.float32)
    optimizer = cls(**hyper).setup(first_half)
    run_steps(optimizer, first_half, grads[:2])
    saved: dict[str, Any] = {}
    saver(saved).save(optimizer)
    expected_keys = {'t', 'epoch'} | {f'{p}/{k}' for p in ('a', 'b')
                                     for k in ('t', *state_names)}
    assert set(saved) == expected_keys
    assert saved['t'] == 2 and saved['a/t'] == 2

    resumed = TwoParams(first_half.a.array, first_half.b.array)
    fresh = cls(**hyper).setup(resumed)
    loader(saved).load(fresh)
    assert fresh.t == 2
    assert sorted(resumed.a.update_rule.state) == sorted(state_names)
    rest = run_steps(fresh, resumed, grads[2:])
    for name in ('a', 'b'):
        numpy.testing.assert_array_equal(rest[-1][name], whole[-1][name])
