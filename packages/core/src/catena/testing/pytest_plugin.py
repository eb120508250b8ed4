"""catena's pytest plugin (registered through the ``pytest11`` entry point)."""

from __future__ import annotations

from typing import Any


def pytest_configure(config: Any) -> None:
    for line in ('gpu: needs a CUDA device', 'slow: takes long', 'ideep: needs catena-intel64',
                 'cudnn: needs cuDNN'):
        config.addinivalue_line('markers', line)
