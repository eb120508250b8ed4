"""The checks every optimizer's tests share.

A test module subclasses :class:`OptimizerChecks` (or :class:`VelocityChecks`)
as ``Test<Optimizer>``, sets its class attributes (the optimizer and its rule,
Chainer's signature, the hyperparameters to test with) and gives
``reference``: an independent NumPy transcription of the update formula.
pytest then runs every ``test_*`` method below for it; the module adds tests
only for what is special to its optimizer.

A ``reference`` is ``reference(param, grads, **hyper)``: a generator that
yields ``(param, state)`` after each step driven by ``grads``, computed in
float64 from the initial value ``param``; ``state`` maps the names of the
rule's state arrays to their expected values.
"""

from __future__ import annotations

import copy
import inspect
import pathlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import serializer

Reference = Callable[..., Iterator[tuple[numpy.ndarray, dict[str, numpy.ndarray]]]]
Draw = Callable[[numpy.random.Generator, tuple], numpy.ndarray]
History = dict[str, list[tuple[numpy.ndarray, dict[str, numpy.ndarray]]]]

TOLERANCES = {
    numpy.float16: {'rtol': 5e-3, 'atol': 2e-3},
    numpy.float32: {'rtol': 1e-5, 'atol': 1e-6},
    numpy.float64: {'rtol': 1e-12, 'atol': 1e-14},
}
DTYPES = tuple(TOLERANCES)
STEPS = 3
NAMES = ('a', 'b')

# Files Chainer 7.8.1 wrote for the MLP below (see tests/data/chainer-7.8.1).
CHAINER_DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'


class ChainerMLP(catena.Chain):
    """The two-layer perceptron of Chainer's saved files, as ``L.Classifier(ChainerMLP())``."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x: Any) -> Any:
        return self.l2(F.relu(self.l1(x)))


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


def set_grads(link: TwoParams, grad: dict[str, numpy.ndarray]) -> None:
    link.a.grad = grad['a'].copy()
    link.b.grad = grad['b'].copy()


def run_steps(optimizer: Any, link: TwoParams,
              grads: Sequence[dict[str, numpy.ndarray]]) -> list[dict[str, numpy.ndarray]]:
    """Sets the gradients and calls ``optimizer.update()`` once per entry of ``grads``."""
    history = []
    for grad in grads:
        set_grads(link, grad)
        optimizer.update()
        history.append({'a': link.a.array.copy(), 'b': link.b.array.copy()})
    return history


def expected_history(reference: Reference, link: TwoParams,
                     grads: Sequence[dict[str, numpy.ndarray]], hyper: dict[str, Any]) -> History:
    """The reference ``(param, state)`` after each step, per parameter of ``link``."""
    return {name: list(reference(getattr(link, name).array.astype(numpy.float64),
                                 [g[name].astype(numpy.float64) for g in grads], **hyper))
            for name in NAMES}


def loss_with_grads(links: Sequence[TwoParams],
                    grad: dict[str, numpy.ndarray]) -> Callable[[], Any]:
    """A loss whose gradient with respect to ``link.<name>`` is ``grad[name]``, each link."""
    def loss() -> Any:
        terms = [F.sum(getattr(link, name) * grad[name]) for link in links for name in NAMES]
        return sum(terms[1:], terms[0])
    return loss


def fits_linear(make_optimizer: Callable[[], Any], steps: int = 300) -> None:
    """Drives a Linear link fitting ``y = x W* + b*`` from zero to a low loss."""
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal((64, 3)).astype(numpy.float32)
    true_w = numpy.array([[1.5, -2.0, 0.5], [0.3, 0.8, -1.2]], dtype=numpy.float32)
    true_b = numpy.array([0.25, -0.75], dtype=numpy.float32)
    y = x @ true_w.T + true_b
    model = L.Linear(3, 2, initialW=numpy.zeros((2, 3), numpy.float32), initial_bias=0)
    optimizer = make_optimizer().setup(model)

    def lossfun() -> Any:
        return F.mean_squared_error(model(x), y)

    first = float(lossfun().array)
    for _ in range(steps):
        optimizer.update(lossfun)
    last = float(lossfun().array)
    assert first > 1.0
    assert last < 1e-4, f'loss {first} -> {last} after {steps} steps'
    assert optimizer.t == steps


def _regression_setup(make_optimizer: Callable[[], Any]) -> tuple[Any, Any, Callable]:
    rng = numpy.random.default_rng(5)
    x = rng.standard_normal((16, 3)).astype(numpy.float32)
    y = rng.standard_normal((16, 2)).astype(numpy.float32)
    model = L.Linear(3, 2, initialW=rng.standard_normal((2, 3)).astype(numpy.float32),
                     initial_bias=rng.standard_normal(2).astype(numpy.float32))
    optimizer = make_optimizer().setup(model)
    return model, optimizer, lambda: F.mean_squared_error(model(x), y)


class DictSerializer(serializer.Serializer):
    """Saves into a flat dict keyed like an npz file."""

    def __init__(self, target: dict[str, Any], path: str = '') -> None:
        self.target, self.path = target, path

    def __getitem__(self, key: str) -> DictSerializer:
        return DictSerializer(self.target, f'{self.path}{key}/')

    def __call__(self, key: str, value: Any) -> Any:
        self.target[self.path + key] = copy.deepcopy(value)
        return value


class DictDeserializer(serializer.Deserializer):
    """Loads from such a dict: in place into arrays, or the stored value for None."""

    def __init__(self, source: dict[str, Any], path: str = '') -> None:
        self.source, self.path = source, path

    def __getitem__(self, key: str) -> DictDeserializer:
        return DictDeserializer(self.source, f'{self.path}{key}/')

    def __call__(self, key: str, value: Any) -> Any:
        stored = self.source[self.path + key]
        if value is None:
            return copy.deepcopy(stored)
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, stored)
            return value
        return type(value)(stored)


class OptimizerChecks:
    """The checks of one optimizer, run by pytest for each ``Test*`` subclass.

    Attributes:
        optimizer: The GradientMethod class.
        rule: Its UpdateRule class.
        defaults: Chainer's signature of ``optimizer``: ``(name, default)`` in order.
        hyper: A value of every hyperparameter, mostly not the default, for the
            formula checks.
        own_hyper: ``(name, value)`` pairs to set on one parameter's rule.
        fit_hyper: The hyperparameters that fit the linear regression.
        fit_steps: The number of steps they need.
        state_names: The state arrays of a rule, named and ordered as Chainer's.
        draw: Draws the parameters and gradients of the formula checks.
    """

    optimizer: type
    rule: type
    defaults: tuple[tuple[str, Any], ...]
    hyper: dict[str, Any]
    own_hyper: tuple[tuple[str, Any], ...]
    fit_hyper: dict[str, Any]
    fit_steps = 300
    state_names: tuple[str, ...]
    draw = staticmethod(normal_draw)

    @staticmethod
    def reference(param: numpy.ndarray, grads: Sequence[numpy.ndarray],
                  **hyper: Any) -> Iterator[tuple[numpy.ndarray, dict[str, numpy.ndarray]]]:
        raise NotImplementedError

    def check_formula(self, dtype: Any, hyper: dict[str, Any]) -> list[dict[str, Any]]:
        """A few steps with ``hyper`` match ``reference``, parameters and state.

        Returns:
            The parameters after each step.
        """
        link = make_link(dtype, self.draw)
        grads = make_grads(dtype, self.draw)
        start = link.a.array.astype(numpy.float64)
        expected = expected_history(self.reference, link, grads, hyper)
        optimizer = self.optimizer(**hyper).setup(link)
        tolerance = TOLERANCES[dtype]
        actual = []
        for step, grad in enumerate(grads):
            set_grads(link, grad)
            optimizer.update()
            actual.append({'a': link.a.array.copy(), 'b': link.b.array.copy()})
            for name in NAMES:
                param, (want, want_state) = getattr(link, name), expected[name][step]
                where = f'{name} after step {step + 1}'
                assert param.dtype == dtype, where
                numpy.testing.assert_allclose(param.array, want, err_msg=where, **tolerance)
                state = param.update_rule.state
                assert list(state) == list(self.state_names), where
                assert sorted(want_state) == sorted(self.state_names), 'reference state'
                for key, value in state.items():
                    assert value.dtype == dtype and value.shape == param.shape, (where, key)
                    numpy.testing.assert_allclose(value, want_state[key],
                                                  err_msg=f'{key} of {where}', **tolerance)
        moved = numpy.abs(link.a.array.astype(numpy.float64) - start).max()
        assert moved > 10 * tolerance['atol'], 'the steps are too small to test anything'
        assert [p.update_rule.t for p in link.params()] == [STEPS, STEPS]
        return actual

    # -------------------------------------------------------------- 1. formula

    @pytest.mark.parametrize('dtype', DTYPES)
    def test_steps_follow_the_formula(self, dtype: Any) -> None:
        self.check_formula(dtype, self.hyper)

    def test_missing_gradient_leaves_the_parameter(self) -> None:
        rule = self.rule(**self.hyper)
        param = catena.Variable(numpy.ones(3, numpy.float32))
        rule.update(param)
        numpy.testing.assert_array_equal(param.array, numpy.ones(3, numpy.float32))
        assert rule.t == 1

    # ----------------------------------------------------------- 2. regression

    def test_fits_a_linear_regression(self) -> None:
        fits_linear(lambda: self.optimizer(**self.fit_hyper), self.fit_steps)

    # ------------------------------------------------ 3. per-parameter values

    def test_per_parameter_hyperparameters(self) -> None:
        """A hyperparameter set on one parameter's rule changes only that parameter."""
        dtype = numpy.float64
        for name, value in self.own_hyper:
            link = make_link(dtype, self.draw)
            grads = make_grads(dtype, self.draw)
            expected_b = expected_history(self.reference, link, grads, self.hyper)['b']
            own = {**self.hyper, name: value}
            expected_a = expected_history(self.reference, link, grads, own)['a']
            optimizer = self.optimizer(**self.hyper).setup(link)
            assert getattr(link.a.update_rule.hyperparam, name) == self.hyper[name]
            setattr(link.a.update_rule.hyperparam, name, value)
            actual = run_steps(optimizer, link, grads)
            for step, params in enumerate(actual):
                for got, (want, _) in ((params['a'], expected_a[step]),
                                       (params['b'], expected_b[step])):
                    numpy.testing.assert_allclose(got, want, err_msg=f'{name}, step {step}',
                                                  **TOLERANCES[dtype])
            assert getattr(optimizer.hyperparam, name) == self.hyper[name]
            assert getattr(link.b.update_rule.hyperparam, name) == self.hyper[name]

    # --------------------------------------------------------------- 4. proxies

    def test_signature_defaults_and_proxies(self) -> None:
        """Chainer's signature and defaults; proxies read and write ``hyperparam``."""
        defaults = list(self.defaults)
        signature = inspect.signature(self.optimizer)
        assert [(p.name, p.default) for p in signature.parameters.values()] == defaults
        rule_signature = inspect.signature(self.rule)
        assert list(rule_signature.parameters) == ['parent_hyperparam'] + [n for n, _ in defaults]

        optimizer = self.optimizer()
        assert optimizer.hyperparam.get_dict() == dict(defaults)
        assert self.rule().hyperparam.get_dict() == dict(defaults)
        assert self.rule(**self.hyper).hyperparam.get_dict() == self.hyper
        assert self.optimizer(**self.hyper).hyperparam.get_dict() == self.hyper
        for index, (name, default) in enumerate(defaults):
            assert getattr(optimizer, name) == default
            new_value = 0.125 + index / 16
            setattr(optimizer, name, new_value)
            assert getattr(optimizer.hyperparam, name) == new_value
            rule = optimizer.create_update_rule()
            assert isinstance(rule, self.rule)
            assert getattr(rule.hyperparam, name) == new_value
            setattr(optimizer.hyperparam, name, default)
            assert getattr(optimizer, name) == default
            assert getattr(rule.hyperparam, name) == default

    # --------------------------------------------------------------- 5. disabled

    def test_disabled_link_is_not_updated(self) -> None:
        """A link disabled after setup stays (no state) while another trains; enabling resumes."""
        model = catena.Chain()
        with model.init_scope():
            model.frozen = make_link(numpy.float32, seed=0)
            model.trained = make_link(numpy.float32, seed=2)
        grads = make_grads(numpy.float32)
        before = {name: param.array.copy() for name, param in model.namedparams()}
        optimizer = self.optimizer(**self.hyper).setup(model)
        model.frozen.disable_update()
        for grad in grads[:2]:
            optimizer.update(loss_with_grads([model.frozen, model.trained], grad))
        for name, param in model.frozen.namedparams():
            numpy.testing.assert_array_equal(param.array, before[f'/frozen{name}'])
            assert param.update_rule.state is None and param.update_rule.t == 0
        for name, param in model.trained.namedparams():
            assert not numpy.allclose(param.array, before[f'/trained{name}']), name
        model.frozen.enable_update()
        optimizer.update(loss_with_grads([model.frozen], grads[2]))
        for name, param in model.frozen.namedparams():
            assert not numpy.array_equal(param.array, before[f'/frozen{name}']), name

    # ------------------------------------------------------------ 6. fp32 update

    @pytest.mark.parametrize('before_setup', [True, False])
    def test_fp32_update_of_a_float16_parameter(self, before_setup: bool) -> None:
        """A float16 parameter is updated through a float32 master copy."""
        link = make_link(numpy.float16, self.draw)
        grads = make_grads(numpy.float16, self.draw)
        expected = expected_history(self.reference, link, grads, self.hyper)
        optimizer = self.optimizer(**self.hyper)
        if before_setup:
            optimizer.use_fp32_update()
        optimizer.setup(link)
        if not before_setup:
            optimizer.use_fp32_update()
        for step, grad in enumerate(grads):
            set_grads(link, grad)
            optimizer.update()
            for name in NAMES:
                param = getattr(link, name)
                master = param.update_rule._fp32_param
                assert param.dtype == numpy.float16 and master.dtype == numpy.float32
                numpy.testing.assert_allclose(master.array, expected[name][step][0],
                                              **TOLERANCES[numpy.float32])
                numpy.testing.assert_array_equal(param.array,
                                                 master.array.astype(numpy.float16))
                for value in param.update_rule.state.values():
                    assert value.dtype == numpy.float32

    # ----------------------------------------------------------- 7. loss scaling

    def test_static_loss_scaling_changes_nothing(self) -> None:
        make = lambda: self.optimizer(**self.hyper)  # noqa: E731
        plain_model, plain, plain_loss = _regression_setup(make)
        scaled_model, scaled, scaled_loss = _regression_setup(make)
        scaled.loss_scaling(scale=256.0)
        start = plain_model.W.array.copy()
        for _ in range(3):
            plain.update(plain_loss)
            scaled.update(scaled_loss)
        assert not numpy.allclose(plain_model.W.array, start)
        scaled_params = dict(scaled_model.namedparams())
        for name, param in plain_model.namedparams():
            numpy.testing.assert_allclose(scaled_params[name].array, param.array, rtol=1e-6,
                                          atol=1e-7)

    # ---------------------------------------------------------- 8. save and load

    def test_save_and_load_continues_exactly(self) -> None:
        """A loaded optimizer continues exactly like the uninterrupted one."""
        grads = make_grads(numpy.float32, steps=5)
        uninterrupted = make_link(numpy.float32)
        whole = self.optimizer(**self.hyper).setup(uninterrupted)
        run_steps(whole, uninterrupted, grads)

        first_half = make_link(numpy.float32)
        optimizer = self.optimizer(**self.hyper).setup(first_half)
        run_steps(optimizer, first_half, grads[:2])
        saved: dict[str, Any] = {}
        DictSerializer(saved).save(optimizer)
        assert set(saved) == {'t', 'epoch'} | {f'{p}/{k}' for p in NAMES
                                               for k in ('t', *self.state_names)}
        assert saved['t'] == 2 and saved['a/t'] == 2

        resumed = TwoParams(first_half.a.array, first_half.b.array)
        fresh = self.optimizer(**self.hyper).setup(resumed)
        DictDeserializer(saved).load(fresh)
        assert fresh.t == 2
        assert list(resumed.a.update_rule.state) == list(self.state_names)
        run_steps(fresh, resumed, grads[2:])
        for name in NAMES:
            param, other = getattr(resumed, name), getattr(uninterrupted, name)
            numpy.testing.assert_array_equal(param.array, other.array)
            for key, value in param.update_rule.state.items():
                numpy.testing.assert_array_equal(value, other.update_rule.state[key])


class VelocityChecks(OptimizerChecks):
    """The checks of the momentum family, whose signatures and defaults Chainer shares."""

    defaults = (('lr', 0.01), ('momentum', 0.9))
    hyper = {'lr': 0.1, 'momentum': 0.8}
    own_hyper = (('lr', 0.02), ('momentum', 0.5))
    fit_hyper = {'lr': 0.05, 'momentum': 0.9}
    state_names = ('v',)
