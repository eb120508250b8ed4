"""Chainer's ``chainer.utils.collections_abc``: the abstract base classes of containers.

It was a Python 2 compatibility shim; here it re-exports :mod:`collections.abc`.
"""

from __future__ import annotations

from collections.abc import *  # noqa: F403 - the point is to re-export every name
from collections.abc import __all__  # noqa: F401
