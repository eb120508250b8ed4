"""The seven optimizer-control extensions (ExponentialShift ... StepShift) on a real Trainer.

One file for all seven, since they share their machinery (extensions/_shift.py):
each schedule is checked against its closed form written out here, then
resumed from an NPZ snapshot and compared with an uninterrupted run.
"""

from __future__ import annotations

import numpy
import pytest

import catena.links as L
from catena import datasets, iterators, optimizers, serializers, training
from catena.training import extensions

N_ITERATIONS = 10
LR = 0.1


def _trainer(tmp_path, optimizer=None, stop=N_ITERATIONS, name='out'):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((40, 4)).astype(numpy.float32)
    t = (x.sum(axis=1) > 0).astype(numpy.int32)
    model = L.Classifier(L.Linear(4, 2, initialW=rng.standard_normal((2, 4)) * 0.1))
    optimizer = (optimizer or optimizers.SGD(lr=LR)).setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 8, shuffle=False)
    updater = training.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, (stop, 'iteration'), out=str(tmp_path / name))


def _record(trainer, attr='lr'):
    """Records the attribute before training and after each iteration's extensions."""
    values = []
    optimizer = trainer.updater.get_optimizer('main')

    @training.make_extension(priority=0)
    def record(trainer):
        values.append(getattr(optimizer, attr))

    trainer.extend(record, call_before_training=True)
    return values


def _expected(formula, n=N_ITERATIONS):
    return [formula(t) for t in range(n + 1)]


def _linear(t):
    if t <= 2:
        return 0.1
    if t >= 6:
        return 0.02
    return 0.1 + (t - 2) / 4 * (0.02 - 0.1)


def _warmup(t):
    return 0.001 + (LR - 0.001) * min(t, 6) / 6


# (id, extension factory, closed form of the value after the t-th call; t = 0 is the
# value set before training)
CASES = [
    ('exponential', lambda: extensions.ExponentialShift('lr', 0.5),
     lambda t: LR * 0.5 ** t),
    ('exponential-init-target', lambda: extensions.ExponentialShift('lr', 0.5, 0.2, 0.02),
     lambda t: max(0.2 * 0.5 ** t, 0.02)),
    ('exponential-growing-target',
     lambda: extensions.ExponentialShift('lr', 2.0, init=0.01, target=0.1),
     lambda t: min(0.01 * 2.0 ** t, 0.1)),
    ('inverse', lambda: extensions.InverseShift('lr', 0.5, 0.75),
     lambda t: LR * (1 + 0.5 * t) ** -0.75),
    ('inverse-target', lambda: extensions.InverseShift('lr', 1.0, 1.0, init=0.2, target=0.05),
     lambda t: max(0.2 / (1 + t), 0.05)),
    ('linear', lambda: extensions.LinearShift('lr', (0.1, 0.02), (2, 6)), _linear),
    ('multistep', lambda: extensions.MultistepShift('lr', 0.1, (3, 5, 8), None),
     lambda t: LR * 0.1 ** sum(t >= step for step in (3, 5, 8))),
    ('multistep-init', lambda: extensions.MultistepShift('lr', 0.5, [4], 0.3),
     lambda t: 0.3 * (0.5 if t >= 4 else 1.0)),
    ('polynomial', lambda: extensions.PolynomialShift('lr', 0.5, 8),
     lambda t: LR * max(1 - t / 8, 0) ** 0.5),
    ('polynomial-target', lambda: extensions.PolynomialShift('lr', 2, 8, target=0.01),
     lambda t: max(LR * max(1 - t / 8, 0) ** 2, 0.01)),
    ('polynomial-negative-rate', lambda: extensions.PolynomialShift('lr', -1, 4, target=1.0),
     lambda t: LR if t == 0 else min(LR / (1 - t / 4), 1.0) if t < 4 else 1.0),
    ('warmup', lambda: extensions.WarmupShift('lr', 0.001, 6), _warmup),
    ('step', lambda: extensions.StepShift('lr', 0.5, 3),
     lambda t: LR * 0.5 ** (t // 3)),
    ('step-target', lambda: extensions.StepShift('lr', 0.1, 2, init=0.5, target=0.004),
     lambda t: max(0.5 * 0.1 ** (t // 2), 0.004)),
]
CASE_IDS = [case[0] for case in CASES]


@pytest.mark.parametrize(('make', 'formula'), [case[1:] for case in CASES], ids=CASE_IDS)
def test_the_values_follow_the_closed_form(tmp_path, make, formula):
    trainer = _trainer(tmp_path)
    trainer.extend(make())
    values = _record(trainer)
    trainer.run()
    numpy.testing.assert_allclose(values, _expected(formula), rtol=1e-12)
    rule = trainer.updater.get_optimizer('main').target.predictor.W.update_rule
    assert rule.hyperparam.lr == pytest.approx(formula(N_ITERATIONS), rel=1e-12)


def test_the_shifted_learning_rate_drives_the_sgd_updates(tmp_path):
    trainer = _trainer(tmp_path)
    param = trainer.updater.get_optimizer('main').target.predictor.W
    steps = [(param.array.copy(), None, None)]

    # Runs right after each update, before the shift moves the rate on.
    @training.make_extension(priority=1000)
    def watch(trainer):
        steps.append((param.array.copy(), param.grad.copy(), trainer.updater.get_optimizer(
            'main').lr))

    trainer.extend(watch)
    trainer.extend(extensions.ExponentialShift('lr', 0.5))
    trainer.run()
    assert len(steps) == N_ITERATIONS + 1
    for i in range(1, N_ITERATIONS + 1):
        before, (after, grad, lr) = steps[i - 1][0], steps[i]
        assert lr == pytest.approx(LR * 0.5 ** (i - 1), rel=1e-12)
        numpy.testing.assert_allclose(after, before - numpy.float32(lr) * grad,
                                      rtol=1e-6, atol=1e-7)


def test_adam_alpha_and_momentum_sgd_momentum(tmp_path):
    trainer = _trainer(tmp_path, optimizer=optimizers.Adam(alpha=0.01))
    trainer.extend(extensions.ExponentialShift('alpha', 0.9))
    alphas = _record(trainer, 'alpha')
    trainer.run()
    numpy.testing.assert_allclose(alphas, _expected(lambda t: 0.01 * 0.9 ** t), rtol=1e-12)

    trainer = _trainer(tmp_path, optimizer=optimizers.MomentumSGD(lr=0.01), name='momentum')
    trainer.extend(extensions.LinearShift('momentum', (0.5, 0.9), (0, 4)))
    momenta = _record(trainer, 'momentum')
    trainer.run()
    numpy.testing.assert_allclose(
        momenta, _expected(lambda t: 0.5 + min(t, 4) / 4 * 0.4), rtol=1e-12)


def test_an_explicit_optimizer_is_adjusted_instead_of_the_main_one(tmp_path):
    other = optimizers.SGD(lr=1.0).setup(L.Linear(2, 2))
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.StepShift('lr', 0.5, 2, optimizer=other))
    trainer.run()
    assert other.lr == pytest.approx(0.5 ** (N_ITERATIONS // 2))
    assert trainer.updater.get_optimizer('main').lr == LR


def test_warmup_leaves_the_attribute_alone_after_the_warmup(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.WarmupShift('lr', 0.001, 3))
    optimizer = trainer.updater.get_optimizer('main')

    @training.make_extension(priority=0)
    def override(trainer):
        if trainer.updater.iteration == 5:
            optimizer.lr = 0.7

    trainer.extend(override)
    trainer.run()
    assert optimizer.lr == 0.7


@pytest.mark.parametrize('factory', [case[1] for case in CASES], ids=CASE_IDS)
def test_defaults_and_serialized_keys_are_chainers(factory):
    shift = factory()
    assert shift.trigger == (1, 'iteration')
    assert shift.priority == training.PRIORITY_READER
    saved = serializers.DictionarySerializer()
    saved.save(shift)
    assert sorted(saved.target) == ['_last_value', '_t']


def test_chainer_style_values_load():
    shift = extensions.ExponentialShift('lr', 0.5)
    serializers.NpzDeserializer({'_t': numpy.array(3, dtype=numpy.int64),
                                 '_last_value': numpy.array(0.0125)}).load(shift)
    assert shift._t == 3 and type(shift._t) is int
    assert shift._last_value == 0.0125 and type(shift._last_value) is float


def _resumable_trainer(tmp_path, make, snapshot, save_at, name):
    trainer = _trainer(tmp_path, name=name)
    trainer.extend(make())
    values = _record(trainer)

    @training.make_extension(priority=-1)
    def save(trainer):
        if trainer.updater.iteration == save_at:
            serializers.save_npz(snapshot, trainer)

    trainer.extend(save)
    return trainer, values


@pytest.mark.parametrize('save_at', [4, 7])
@pytest.mark.parametrize('make', [case[1] for case in CASES], ids=CASE_IDS)
def test_a_resumed_run_continues_like_an_uninterrupted_one(tmp_path, make, save_at):
    snapshot = str(tmp_path / 'snapshot.npz')
    whole, whole_values = _resumable_trainer(tmp_path, make, snapshot, save_at, 'whole')
    whole.run()

    resumed, resumed_values = _resumable_trainer(tmp_path, make, snapshot, -1, 'resumed')
    serializers.load_npz(snapshot, resumed)
    assert resumed.updater.iteration == save_at
    resumed.run()
    # The value restored before training is the one in force at save_at.
    assert resumed_values == whole_values[save_at:]
    for (name, a), (_, b) in zip(sorted(whole.updater.get_optimizer('main').target.namedparams()),
                                 sorted(resumed.updater.get_optimizer('main')
                                        .target.namedparams())):
        numpy.testing.assert_array_equal(a.array, b.array, err_msg=name)


def test_an_unknown_attribute_is_named_and_nothing_changes(tmp_path):
    trainer = _trainer(tmp_path)
    trainer.extend(extensions.ExponentialShift('Lr', 0.5, init=0.3))
    with pytest.raises(AttributeError, match=r"ExponentialShift: the optimizer SGD has no "
                                             r"attribute 'Lr' \(the attr argument\)"):
        trainer.run()
    optimizer = trainer.updater.get_optimizer('main')
    assert optimizer.lr == LR and not hasattr(optimizer.hyperparam, 'Lr')


@pytest.mark.parametrize(('make', 'error', 'message'), [
    (lambda: extensions.ExponentialShift(3, 0.5), TypeError, 'attr must be the name'),
    (lambda: extensions.ExponentialShift('', 0.5), TypeError, 'attr must be the name'),
    (lambda: extensions.ExponentialShift('lr', -0.5), ValueError, 'rate must not be negative'),
    (lambda: extensions.ExponentialShift('lr', '0.5'), TypeError,
     r"rate must be a real number, got str \('0.5'\)"),
    (lambda: extensions.ExponentialShift('lr', 0.5, init='x'), TypeError,
     'init must be a real number or None'),
    (lambda: extensions.ExponentialShift('lr', 0.5, target=0), ValueError,
     'target must be nonzero'),
    (lambda: extensions.InverseShift('lr', -1, 0.5), ValueError, 'gamma must not be negative'),
    (lambda: extensions.InverseShift('lr', 1, None), TypeError, 'power must be a real number'),
    (lambda: extensions.InverseShift('lr', 1, 1, target='a'), TypeError,
     'target must be a real number or None'),
    (lambda: extensions.LinearShift('lr', 0.1, (0, 5)), TypeError,
     'value_range must be a pair'),
    (lambda: extensions.LinearShift('lr', (0.1, None), (0, 5)), TypeError,
     r'value_range\[1\] must be a real number'),
    (lambda: extensions.LinearShift('lr', (0.1, 0.2), (0.5, 1)), TypeError,
     r'time_range\[0\] must be an int'),
    (lambda: extensions.LinearShift('lr', (0.1, 0.2), (5, 1)), ValueError,
     r'time_range must be \(t1, t2\) with t1 <= t2, got \(5, 1\)'),
    (lambda: extensions.MultistepShift('lr', 0.1, 5, None), TypeError,
     'step_value must be a sequence of ints, got int'),
    (lambda: extensions.MultistepShift('lr', 0.1, (1.5,), None), TypeError,
     r'step_value\[0\] must be an int'),
    (lambda: extensions.MultistepShift('lr', 0.1, (5, 3), None), ValueError,
     'step_value must be in ascending order'),
    (lambda: extensions.MultistepShift('lr', None, (3,), None), TypeError,
     'gamma must be a real number'),
    (lambda: extensions.PolynomialShift('lr', 0.5, 0), ValueError,
     'max_count must be positive, got 0'),
    (lambda: extensions.PolynomialShift('lr', 0.5, 10, target=0.0), ValueError,
     'target must be nonzero'),
    (lambda: extensions.WarmupShift('lr', 0.001, 0), ValueError,
     'warmup_iter must be positive'),
    (lambda: extensions.WarmupShift('lr', 0.001, 2.5), TypeError,
     r'warmup_iter must be an int, got float \(2.5\)'),
    (lambda: extensions.WarmupShift('lr', '0', 2), TypeError, 'warmup_start must be a real'),
    (lambda: extensions.StepShift('lr', 0.5, 0), ValueError, 'step must be positive'),
    (lambda: extensions.StepShift('lr', True, 2), TypeError,
     'gamma must be a real number, got bool'),
])
def test_bad_arguments_are_named(make, error, message):
    with pytest.raises(error, match=message):
        make()

