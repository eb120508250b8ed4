"""catena.graph_optimizations: static_graph and static_code run define-by-run code."""

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import graph_optimizations
from catena.graph_optimizations import static_code, static_graph


class StaticMLP(catena.Chain):
    def __init__(self, side_effects=None):
        super().__init__()
        self.side_effects = side_effects if side_effects is not None else []
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    @static_code
    def record(self, inputs=None, outputs=None):
        self.side_effects.append(inputs[0].shape)

    @static_graph(verbosity_level=0)
    def __call__(self, x):
        self.record(inputs=[x])
        return self.l2(F.relu(self.l1(x)))

    def dynamic(self, x):
        return self.l2(F.relu(self.l1(x)))


def _x(n=5, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 3)).astype(np.float32)


def test_results_and_gradients_match_define_by_run():
    model = StaticMLP()
    for seed in range(3):  # later calls are as correct as the first
        x_static, x_dynamic = catena.Variable(_x(seed=seed)), catena.Variable(_x(seed=seed))
        y_static, y_dynamic = model(x_static), model.dynamic(x_dynamic)
        np.testing.assert_allclose(y_static.array, y_dynamic.array)
        model.cleargrads()
        F.sum(y_static * y_static).backward()
        static_grads = [p.grad.copy() for p in model.params()] + [x_static.grad]
        model.cleargrads()
        F.sum(y_dynamic * y_dynamic).backward()
        dynamic_grads = [p.grad.copy() for p in model.params()] + [x_dynamic.grad]
        for a, b in zip(static_grads, dynamic_grads):
            np.testing.assert_allclose(a, b)


def test_side_effect_code_runs_on_every_call():
    model = StaticMLP()
    model(_x(2))
    model(_x(3))
    assert model.side_effects == [(2, 3), (3, 3)]


def test_one_schedule_per_configuration_and_input_signature():
    model = StaticMLP()
    model(_x(5))
    model(_x(5, seed=1))
    assert len(model.schedule_manager.schedules) == 1
    with catena.using_config('train', False):
        model(_x(5))
    model(_x(6))
    schedules = model.schedule_manager.schedules
    assert len(schedules) == 3
    assert model.static_schedule.key == (True, True, ((((6, 3), 'float32'),), ()))
    assert sorted(s.num_calls for s in schedules.values()) == [1, 1, 2]
    assert 'ScheduleManager with 3 schedule(s)' in repr(model.schedule_manager)
    model.schedule_manager.end_forward()
    assert model.schedule_manager.iterations == 1


def test_turned_off_by_config_without_side_effects():
    model = StaticMLP()
    with catena.using_config('use_static_graph', False):
        y = model(_x())
    assert y.shape == (5, 2)
    assert not hasattr(model, 'schedule_manager')
    assert not hasattr(model, 'static_schedule')


def test_nesting_is_refused():
    class Outer(catena.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = StaticMLP()

        @static_graph
        def __call__(self, x):
            return self.inner(x)

    with pytest.raises(RuntimeError, match='must not be nested'):
        Outer()(_x())


def test_verbosity_prints_new_schedules(capsys):
    class Verbose(catena.Chain):
        @static_graph(verbosity_level=1)
        def __call__(self, x):
            return x * 2

    model = Verbose()
    model(_x())
    model(_x())
    assert capsys.readouterr().out.count('static_graph: created') == 1


def test_bad_options_are_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument.*'verbose'"):
        static_graph(verbose=1)
    with pytest.raises(TypeError, match='decorates a method'):
        static_graph(3)


def test_model_with_schedules_can_be_copied():
    model = StaticMLP()
    model(_x())
    copied = model.copy(mode='copy')
    assert copied(_x()).shape == (5, 2)


def test_names_on_catena():
    assert catena.static_graph is static_graph
    assert catena.static_code is static_code
    assert catena.graph_optimizations is graph_optimizations
    from catena.graph_optimizations.static_graph import static_graph as by_module_path
    assert by_module_path is static_graph
