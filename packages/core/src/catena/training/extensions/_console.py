"""Terminal helpers shared by the printing extensions: tty detection and ANSI codes."""

from __future__ import annotations

from typing import Any

#: Erases from the cursor to the end of the screen.
ERASE_BELOW = '\033[J'


def cursor_up(lines: int) -> str:
    """The ANSI code that moves the cursor up ``lines`` lines."""
    return f'\033[{lines}A'


def is_terminal(out: Any) -> bool:
    """Whether the stream ``out`` is an interactive terminal (its ``isatty()`` is true)."""
    isatty = getattr(out, 'isatty', None)
    if isatty is None:
        return False
    try:
        return bool(isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def flush(out: Any) -> None:
    """Flushes ``out`` when it can be flushed."""
    flush_method = getattr(out, 'flush', None)
    if flush_method is not None:
        flush_method()
