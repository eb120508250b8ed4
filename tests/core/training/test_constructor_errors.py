"""Bad constructor arguments of trainers, updaters, triggers and extensions raise
errors that name the class, the argument and what came."""

import numpy
import pytest

from catena import iterators, links, optimizers, training
from catena.training import extensions, triggers


def _iterator():
    return iterators.SerialIterator([numpy.zeros(2, 'f')] * 4, 2, repeat=False)


def _optimizer():
    return optimizers.SGD().setup(links.Linear(2, 2))


def _updater():
    return training.updaters.StandardUpdater(_iterator(), _optimizer())


CASES = [
    (lambda: training.Trainer(None), TypeError, 'Trainer: updater must be an updater.*got None'),
    (lambda: training.Trainer(_updater(), 'x'), ValueError,
     "Trainer: stop_trigger must be a callable.*got 'x'"),
    (lambda: training.Trainer(_updater(), (0, 'epoch')), ValueError,
     r"Trainer: stop_trigger \(0, 'epoch'\) is not a valid.*period must be positive; got 0"),
    (lambda: training.Trainer(_updater(), out=3), TypeError, 'Trainer: out must be a path'),
    (lambda: training.updaters.StandardUpdater(_iterator(), None), TypeError,
     'StandardUpdater: optimizer must be an optimizer.*got None'),
    (lambda: training.updaters.StandardUpdater(None, _optimizer()), TypeError,
     'StandardUpdater: iterator must be a catena.dataset.Iterator.*got None'),
    (lambda: training.updaters.StandardUpdater(_iterator(), _optimizer(), converter=3),
     TypeError, 'StandardUpdater: converter must be callable; got 3'),
    (lambda: training.updaters.StandardUpdater(_iterator(), _optimizer(), loss_func='f'),
     TypeError, "StandardUpdater: loss_func must be callable or None; got 'f'"),
    (lambda: training.updaters.ParallelUpdater(_iterator(), _optimizer(), devices=[0]),
     TypeError, 'ParallelUpdater: devices must be a dict.*got list'),
    (lambda: triggers.IntervalTrigger(None, 'epoch'), TypeError,
     'IntervalTrigger: period must be a positive number; got None'),
    (lambda: triggers.IntervalTrigger(-1, 'iteration'), ValueError,
     'IntervalTrigger: period must be positive; got -1'),
    (lambda: triggers.IntervalTrigger(1, 'day'), ValueError,
     "IntervalTrigger: unit must be 'epoch' or 'iteration'; got 'day'"),
    (lambda: triggers.ManualScheduleTrigger(None, 'epoch'), TypeError,
     'ManualScheduleTrigger: points must be a number or a non-empty sequence.*got None'),
    (lambda: triggers.ManualScheduleTrigger('12', 'epoch'), TypeError,
     "ManualScheduleTrigger: points must be.*got '12'"),
    (lambda: triggers.ManualScheduleTrigger([1, 'a'], 'epoch'), TypeError,
     "ManualScheduleTrigger: points must be.*which holds 'a'"),
    (lambda: triggers.ManualScheduleTrigger(1, 'day'), ValueError,
     "ManualScheduleTrigger: unit must be 'epoch' or 'iteration'; got 'day'"),
    (lambda: triggers.MinValueTrigger(None), TypeError,
     'MinValueTrigger: key must be an observation key.*got None'),
    (lambda: triggers.MaxValueTrigger('k', trigger=3), ValueError,
     'MaxValueTrigger: trigger must be a callable, None or a .period, unit. pair.*got 3'),
    (lambda: triggers.EarlyStoppingTrigger(patience='a'), TypeError,
     "EarlyStoppingTrigger: patience must be a non-negative int; got 'a'"),
    (lambda: triggers.EarlyStoppingTrigger(patients=-1), ValueError,
     'EarlyStoppingTrigger: patience must be a non-negative int; got -1'),
    (lambda: triggers.EarlyStoppingTrigger(monitor=None), TypeError,
     'EarlyStoppingTrigger: monitor must be an observation key'),
    (lambda: triggers.EarlyStoppingTrigger(mode='best'), ValueError,
     "EarlyStoppingTrigger: mode must be 'auto', 'max' or 'min'; got 'best'"),
    (lambda: triggers.TimeTrigger(None), TypeError,
     'TimeTrigger: period must be a positive real number; got None'),
    (lambda: triggers.TimeTrigger(0), ValueError,
     'TimeTrigger: period must be a positive real number; got 0'),
    (lambda: training.get_trigger((1, 2, 3)), ValueError,
     r'get_trigger: trigger must be a callable.*got \(1, 2, 3\)'),
    (lambda: extensions.Evaluator(_iterator(), links.Linear(2, 2), converter=3), TypeError,
     'Evaluator: converter must be callable; got 3'),
    (lambda: extensions.Evaluator(_iterator(), links.Linear(2, 2), eval_func='f'), TypeError,
     "Evaluator: eval_func must be callable or None; got 'f'"),
    (lambda: extensions.Evaluator(_iterator(), None), TypeError,
     'Evaluator: target must be a catena.link.Link or a dict of them; got None'),
    (lambda: extensions.LogReport(keys=3), TypeError,
     'LogReport: keys must be a list of keys or None; got 3'),
    (lambda: extensions.LogReport(trigger='epoch'), ValueError,
     "LogReport: trigger must be a callable.*got 'epoch'"),
    (lambda: extensions.PrintReport(None), TypeError,
     'PrintReport: entries must be a list of keys; got None'),
    (lambda: extensions.PrintReport([3]), TypeError,
     r'PrintReport: entries must be strs.*got \[3\], which holds 3'),
    (lambda: extensions.PrintReport(['epoch'], out=3), TypeError,
     'PrintReport: out must be a text stream'),
    (lambda: extensions.ProgressBar(bar_length=2.5), TypeError,
     'ProgressBar: bar_length must be a positive int; got 2.5'),
    (lambda: extensions.ProgressBar(training_length=(10, 'week')), ValueError,
     "ProgressBar: training_length's unit must be 'epoch' or 'iteration'; got 'week'"),
    (lambda: extensions.snapshot(n_retains='a'), TypeError,
     "snapshot: n_retains must be an int; got 'a'"),
    (lambda: extensions.snapshot(savefun=3), TypeError, 'snapshot: savefun must be callable'),
    (lambda: extensions.snapshot(filename=3), TypeError,
     'snapshot: filename must be a format string or a callable; got 3'),
    (lambda: extensions.snapshot_object(None, 'model'), TypeError,
     'snapshot_object: target must be an object to save'),
    (lambda: extensions.ExponentialShift('lr', 0.5, optimizer=3), TypeError,
     'ExponentialShift: optimizer must be an optimizer or None'),
    (lambda: extensions.observe_lr(optimizer_name=3), TypeError,
     'observe_lr: optimizer_name must be a str'),
    (lambda: extensions.observe_value('lr', 3), TypeError,
     'observe_value: target_func must be callable; got 3'),
    (lambda: extensions.VariableStatisticsPlot(None), TypeError,
     'VariableStatisticsPlot: targets must be a Variable, a Link or a list of them; got None'),
    (lambda: extensions.VariableStatisticsPlot(links.Linear(2, 2), percentile_sigmas='a'),
     TypeError, "VariableStatisticsPlot: percentile_sigmas must be .*got 'a'"),
    (lambda: extensions.VariableStatisticsPlot(links.Linear(2, 2), percentile_sigmas=[101]),
     ValueError, r'VariableStatisticsPlot: percentile_sigmas must be a real number in \[0, 100\]'),
    (lambda: extensions.VariableStatisticsPlot(links.Linear(2, 2), plot_mean='no'), TypeError,
     "VariableStatisticsPlot: plot_mean must be a bool; got 'no'"),
    (lambda: extensions.VariableStatisticsPlot(links.Linear(2, 2), figsize='big'), TypeError,
     "VariableStatisticsPlot: figsize must be a pair of numbers.*got 'big'"),
    (lambda: extensions.VariableStatisticsPlot(links.Linear(2, 2), max_sample_size=0),
     ValueError, 'VariableStatisticsPlot: max_sample_size must be a positive int; got 0'),
    (lambda: extensions.PlotReport(None), TypeError,
     'PlotReport: y_keys must be a key or a list of keys; got None'),
    (lambda: extensions.PlotReport('loss', x_key=3), TypeError,
     'PlotReport: x_key must be a str'),
    (lambda: extensions.ParameterStatistics(links.Linear(2, 2), statistics=3), TypeError,
     "ParameterStatistics: statistics must be a dict of functions.*got 3"),
    (lambda: extensions.ParameterStatistics(None), TypeError,
     'ParameterStatistics: links must be a catena.Link.*got None'),
    (lambda: extensions.MicroAverage(None, 'a', 'b'), TypeError,
     'MicroAverage: numerator_key must be a str.*got None'),
    (lambda: extensions.FailOnNonNumber(check_grad='no'), TypeError,
     "FailOnNonNumber: check_grad must be a bool; got 'no'"),
    (lambda: extensions.DumpGraph(None), TypeError, 'DumpGraph: root_name must be a str'),
    (lambda: extensions.DumpGraph('main/loss', variable_style='red'), TypeError,
     "DumpGraph: variable_style must be a dict.*got 'red'"),
]


@pytest.mark.filterwarnings('ignore::UserWarning')
@pytest.mark.parametrize('build, error, message', CASES)
def test_bad_argument_is_named(build, error, message):
    with pytest.raises(error, match=message) as info:
        build()
    assert type(info.value) is error


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_good_arguments_still_pass():
    trainer = training.Trainer(_updater(), (1, 'epoch'), out='result')
    assert trainer.stop_trigger.get_training_length() == (1, 'epoch')
    assert triggers.ManualScheduleTrigger(numpy.int64(3), 'iteration').points == [3]
    assert triggers.ManualScheduleTrigger(range(1, 3), 'epoch').points == [1, 2]
    assert triggers.EarlyStoppingTrigger(patience=numpy.int32(2)).patience == 2
    extensions.PlotReport(('main/loss',), x_key='epoch')
    extensions.VariableStatisticsPlot(links.Linear(2, 2), percentile_sigmas=50,
                                      plot_mean=1, figsize=(4, 3.5))
