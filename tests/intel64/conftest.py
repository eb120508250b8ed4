"""Every test starts with a fresh oneDNN calibration that keeps nothing on disk."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def fresh_calibration(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                      ) -> Iterator[None]:
    try:
        from catena_intel64 import _calibration
    except ImportError:  # catena-intel64 is not installed: its tests skip themselves
        yield
        return
    monkeypatch.setenv('CATENA_IDEEP_CALIBRATION_CACHE',
                       str(tmp_path_factory.mktemp('calibration')))
    previous = _calibration._calibrator
    _calibration.reset(_calibration.Calibrator(open_store=lambda: None))
    yield
    _calibration._calibrator = previous
