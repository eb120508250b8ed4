"""Parametrizes ``converter_run`` with the (case, opset) runs of a test module's CASES.

A module may also define ``RUNTIME_GAPS``, a dict from ``(case name, opset)`` to a
reason: those runs export a valid model that the installed onnxruntime has no kernel
for, and are marked as strict expected failures. A ``(reason, fixed_in)`` pair
applies only to onnxruntime releases older than ``fixed_in`` (Python 3.10 cannot
install newer ones), as a non-strict expected failure: the releases in between were
not tried.
"""

from __future__ import annotations

import pytest
from packaging.version import Version


def _gap_marks(gap: str | tuple[str, str] | None) -> list[pytest.MarkDecorator]:
    if gap is None:
        return []
    if isinstance(gap, str):
        return [pytest.mark.xfail(reason=gap, strict=True)]
    import onnxruntime

    reason, fixed_in = gap
    if Version(onnxruntime.__version__) >= Version(fixed_in):
        return []
    return [pytest.mark.xfail(reason=f'onnxruntime {onnxruntime.__version__}: {reason}',
                              strict=False)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Runs a test that takes ``converter_run`` once per ``case_runs(CASES)`` pair."""
    if 'converter_run' not in metafunc.fixturenames:
        return
    from catena_onnx.testing import case_runs

    gaps = getattr(metafunc.module, 'RUNTIME_GAPS', {})
    params = []
    for case, opset in case_runs(metafunc.module.CASES):
        marks = _gap_marks(gaps.get((case.name, opset)))
        params.append(pytest.param((case, opset), id=f'{case}-{opset}', marks=marks))
    metafunc.parametrize('converter_run', params)
