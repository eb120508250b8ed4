"""Parametrizes ``converter_run`` with the (case, opset) runs of a test module's CASES.

A module may also define ``RUNTIME_GAPS``, a dict from ``(case name, opset)`` to a
reason: those runs export a valid model that the installed onnxruntime has no kernel
for, and are marked as strict expected failures.
"""

from __future__ import annotations

import pytest


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Runs a test that takes ``converter_run`` once per ``case_runs(CASES)`` pair."""
    if 'converter_run' not in metafunc.fixturenames:
        return
    from catena_onnx.testing import case_runs

    gaps = getattr(metafunc.module, 'RUNTIME_GAPS', {})
    params = []
    for case, opset in case_runs(metafunc.module.CASES):
        reason = gaps.get((case.name, opset))
        marks = [] if reason is None else [pytest.mark.xfail(reason=reason, strict=True)]
        params.append(pytest.param((case, opset), id=f'{case}-{opset}', marks=marks))
    metafunc.parametrize('converter_run', params)
