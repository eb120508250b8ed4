"""Runs the example scripts under examples/ in subprocesses, for the smoke tests."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / 'examples'


@pytest.fixture
def run_example(tmp_path: pathlib.Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Returns ``run(script, *args)``: runs ``examples/<script>`` in ``tmp_path``.

    The script runs with one BLAS thread (tiny matrices gain nothing from
    more, and a busy machine makes extra threads very slow) and matplotlib's
    Agg backend. A non-zero exit status fails the test with the script's output.
    """
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1',
               MKL_NUM_THREADS='1', MPLBACKEND='Agg')

    def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
        completed = subprocess.run(
            [sys.executable, str(EXAMPLES / script), *args], cwd=tmp_path, env=env,
            capture_output=True, text=True, timeout=300, check=False)
        assert completed.returncode == 0, (
            f'{script} {" ".join(args)} exited with {completed.returncode}\n'
            f'--- stdout ---\n{completed.stdout}\n--- stderr ---\n{completed.stderr}')
        return completed

    return run


def read_log(path: pathlib.Path) -> list[dict[str, Any]]:
    """The entries of a LogReport file."""
    entries = json.loads(path.read_text())
    assert isinstance(entries, list) and entries, f'{path} holds no log entries'
    return entries


@pytest.fixture
def load_log() -> Callable[[pathlib.Path], list[dict[str, Any]]]:
    """Returns ``read_log(path)``: the list of entries of a LogReport file."""
    return read_log
