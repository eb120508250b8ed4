"""A temporary directory as a context manager (``catena.utils.tempdir``)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

__all__ = ['tempdir']


@contextlib.contextmanager
def tempdir(**kwargs: Any) -> Iterator[str]:
    """Creates a temporary directory and removes it, with its content, on exit.

    Args:
        kwargs: Passed to :func:`tempfile.mkdtemp` (``suffix``, ``prefix``,
            ``dir``).

    Yields:
        str: The directory's path.

    .. admonition:: Example

        >>> import os
        >>> from catena import utils
        >>> with utils.tempdir() as path:
        ...     os.path.isdir(path)
        True
        >>> os.path.exists(path)
        False
    """
    path = tempfile.mkdtemp(**kwargs)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
