"""Validation shared by the noise functions."""

from __future__ import annotations

from typing import Any


def check_ratio(ratio: Any, function: str, closed: bool = False) -> None:
    """Raises ValueError unless ``0 <= ratio < 1`` (``<= 1`` when ``closed``).

    Args:
        ratio: The probability to check.
        function: The function's name, for the message.
        closed: Whether 1 is allowed.
    """
    valid = 0.0 <= ratio <= 1.0 if closed else 0.0 <= ratio < 1.0
    if not valid:
        interval = '[0, 1]' if closed else '[0, 1)'
        raise ValueError(f'{function}: ratio must be in {interval}; got {ratio!r}')
