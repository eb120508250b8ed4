"""``import catena`` in a fresh interpreter, against ``import torch``.

Each call starts ``python -c "import <package>"`` in a subprocess and waits for
it, so the time includes the interpreter's own start-up (the same for both
sides). The case exists to notice when an import makes ``import catena``
slower; ``python -X importtime -c "import catena"`` then finds the culprit.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any


def _importer(package: str) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        command = [sys.executable, "-c", f"import {package}"]
        subprocess.run(command, check=True)  # fail early, outside the timing

        def run() -> Any:
            return subprocess.run(command, check=True)

        return run

    return factory


def cases() -> list[dict[str, Any]]:
    return [
        {
            "name": "import/fresh-interpreter",
            "ops": 1,
            "target": 1.0,
            "catena": _importer("catena"),
            "torch": _importer("torch"),
        }
    ]
