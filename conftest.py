"""The namespace of the docstring examples, which ``nox -s tests`` runs as doctests.

Examples use ``np`` (or ``numpy``), ``catena``, ``F``, ``L``, ``testing`` and
``gradient_check`` without importing them, as Chainer's documentation does.
"""

import numpy
import pytest


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
