"""Trainer extensions (``catena.training.extensions``)."""

from __future__ import annotations

from catena.training.extensions import snapshot_writers
from catena.training.extensions._snapshot import snapshot, snapshot_object
from catena.training.extensions.computational_graph import DumpGraph, dump_graph
from catena.training.extensions.evaluator import Evaluator
from catena.training.extensions.exponential_shift import ExponentialShift
from catena.training.extensions.fail_on_nonnumber import FailOnNonNumber
from catena.training.extensions.inverse_shift import InverseShift
from catena.training.extensions.linear_shift import LinearShift
from catena.training.extensions.log_report import LogReport
from catena.training.extensions.micro_average import MicroAverage
from catena.training.extensions.multistep_shift import MultistepShift
from catena.training.extensions.parameter_statistics import ParameterStatistics
from catena.training.extensions.plot_report import PlotReport
from catena.training.extensions.polynomial_shift import PolynomialShift
from catena.training.extensions.print_report import PrintReport
from catena.training.extensions.progress_bar import ProgressBar
from catena.training.extensions.step_shift import StepShift
from catena.training.extensions.value_observation import observe_lr, observe_value
from catena.training.extensions.variable_statistics_plot import VariableStatisticsPlot
from catena.training.extensions.variable_unchain import unchain_variables
from catena.training.extensions.warmup_shift import WarmupShift

__all__ = [
    'DumpGraph', 'Evaluator', 'ExponentialShift', 'FailOnNonNumber', 'InverseShift', 'LinearShift',
    'LogReport', 'MicroAverage', 'MultistepShift', 'ParameterStatistics', 'PlotReport',
    'PolynomialShift', 'PrintReport', 'ProgressBar', 'StepShift', 'VariableStatisticsPlot',
    'WarmupShift', 'dump_graph', 'observe_lr', 'observe_value', 'snapshot', 'snapshot_object',
    'snapshot_writers', 'unchain_variables',
]
