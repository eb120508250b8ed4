"""KernelReport: the record of which implementation (oneDNN or generic) computed each function."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import _function_hooks

pytest.importorskip('catena_intel64')

from catena_intel64.report import GENERIC, KernelReport  # noqa: E402

pytestmark = pytest.mark.ideep


def _model() -> Any:
    link = L.Convolution2D(3, 4, 3, pad=1)
    link.W.array[...] = numpy.random.default_rng(0).standard_normal(link.W.shape)
    return link


def _run(model: Any, config: str, backward: bool = True) -> KernelReport:
    x = catena.Variable(numpy.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(
        numpy.float32))
    with catena.using_config('use_ideep', config), KernelReport() as report:
        y = F.softplus(model(x))  # softplus has no oneDNN kernel
        if backward:
            F.sum(y).backward()
    return report


def test_is_a_function_hook_named_kernel_report() -> None:
    report = KernelReport()
    assert isinstance(report, catena.FunctionHook)
    assert report.name == 'KernelReport'
    with report as entered:
        assert entered is report
        assert _function_hooks.get_function_hooks()['KernelReport'] is report
    assert 'KernelReport' not in _function_hooks.get_function_hooks()


def test_convolution_runs_on_onednn_under_always() -> None:
    report = _run(_model(), 'always', backward=False)
    assert report.calls[0][0] == 'Convolution2DFunction'
    assert report.calls[0][1].startswith('oneDNN convolution_2d (')
    assert ('Softplus', GENERIC) in report.calls


def test_everything_is_generic_under_never() -> None:
    report = _run(_model(), 'never')
    assert report.calls
    assert {implementation for _, implementation in report.calls} == {GENERIC}
    labels = [label for label, _ in report.calls]
    assert labels[:2] == ['Convolution2DFunction', 'Softplus']
    # The gradient functions that backward applies are recorded too.
    assert 'Convolution2DGradW' in labels


def test_gradient_functions_are_reported_with_their_implementation() -> None:
    report = _run(_model(), 'always')
    summary = report.summary()
    (conv_impl, count), = summary['Convolution2DFunction'].items()
    assert conv_impl.startswith('oneDNN convolution_2d (') and count == 1
    (grad_w_impl, count), = summary['Convolution2DGradW'].items()
    assert grad_w_impl.startswith('oneDNN convolution_2d_grad_w (') and count == 1
    assert summary['Softplus'] == Counter({GENERIC: 1})
    # The input requires a gradient: a deconvolution computed it, on oneDNN as well.
    (deconv_impl, _), = summary['Deconvolution2DFunction'].items()
    assert deconv_impl.startswith('oneDNN deconvolution_2d (')


def test_summary_counts_each_implementation_per_label() -> None:
    report = KernelReport()
    report.calls.extend([('A', 'generic'), ('B', 'x'), ('A', 'y'), ('A', 'generic')])
    summary = report.summary()
    assert list(summary) == ['A', 'B']
    assert summary == {'A': Counter({'generic': 2, 'y': 1}), 'B': Counter({'x': 1})}


def test_a_fallback_is_reported_as_generic() -> None:
    x = numpy.ones((1, 3, 8, 8))  # float64: the oneDNN kernel declines
    W = numpy.ones((4, 3, 3, 3))
    with catena.using_config('use_ideep', 'always'), KernelReport() as report:
        F.convolution_2d(x, W)
    assert report.calls == [('Convolution2DFunction', GENERIC)]


def test_print_report_prints_a_table() -> None:
    report = _run(_model(), 'always')
    out = io.StringIO()
    report.print_report(file=out)
    *lines, last = out.getvalue().splitlines()
    assert lines[0].split() == ['FunctionName', 'Implementation', 'Occurrence']
    rows = {line.split()[0]: line for line in lines[1:]}
    assert 'oneDNN convolution_2d (' in rows['Convolution2DFunction']
    assert rows['Convolution2DFunction'].endswith(' 1')
    assert rows['Softplus'].split()[1:] == [GENERIC, '1']
    assert len({len(line) for line in lines}) == 1  # aligned columns
    # 'always' is not calibrated: no decision
    assert last.startswith('oneDNN calibration: on; 0 decisions (0 oneDNN, 0 generic), ')
    assert last.endswith('cache: none (in memory only) (0 decisions read)')


def test_print_report_defaults_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    report = KernelReport()
    report.calls.append(('ReLU', GENERIC))
    report.print_report()
    assert capsys.readouterr().out.splitlines()[1].split() == ['ReLU', GENERIC, '1']


def test_the_report_keeps_only_strings() -> None:
    report = _run(_model(), 'always')
    assert all(type(label) is str and type(impl) is str for label, impl in report.calls)
