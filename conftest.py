"""Shared pytest setup: the repository root on sys.path, and the doctest namespace.

``nox -s tests`` runs the docstring examples as doctests.

Examples use ``np`` (or ``numpy``), ``catena``, ``F``, ``L``, ``testing`` and
``gradient_check`` without importing them, as Chainer's documentation does.
"""

import pathlib
import sys

import numpy
import pytest

# Test modules are imported by their path from here (tests.core...), and the
# MultiprocessIterator tests send classes defined in them to worker processes,
# which must import those modules by name: the repository root goes on sys.path
# (``python -m pytest`` does that itself; the ``pytest`` script does not).
ROOT = str(pathlib.Path(__file__).resolve().parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# --shard K/N, with which the noxfile runs a session's tests in one process per core.
pytest_plugins = ["tests._sharding"]


@pytest.fixture(autouse=True, scope="session")
def _catena_doctest_namespace(doctest_namespace):
    import catena
    import catena.functions
    import catena.gradient_check
    import catena.links
    import catena.testing

    doctest_namespace.update(
        np=numpy, numpy=numpy, catena=catena, F=catena.functions, L=catena.links,
        testing=catena.testing, gradient_check=catena.gradient_check)
