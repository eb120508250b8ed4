"""Public test helpers (``catena.testing``), so that plugins test the way the core does.

* Declarative op tests that run on every device: :class:`FunctionTestCase`,
  :class:`LinkTestCase`, :class:`LinkInitializersTestCase` (failures raise
  :class:`FunctionTestError` / :class:`LinkTestError`), with the device matrix from the
  ``catena_test_backend_params`` hook (:class:`BackendConfig`,
  :func:`inject_backend_tests`) and one tolerance table
  (:func:`tolerances`).
* Assertions on arrays of any device: :func:`assert_allclose`; on
  warnings: :func:`assert_warns`.
* Ready-made test classes: :class:`distribution_unittest` (distributions
  against SciPy), :func:`unary_math_function_unittest`.
* Test data and fixtures: :func:`generate_matrix`,
  :func:`get_trainer_with_mock_updater`.
* Parameterization and repetition: :func:`parameterize`, :func:`product`,
  :func:`product_dict`, :mod:`~catena.testing.condition`.
* Randomness: :func:`fix_random`, :func:`generate_seed`.
* Annotations and environment: :mod:`~catena.testing.attr`,
  :func:`with_requires`, :func:`without_requires`, :func:`patch`.
* Serializer round trips: :func:`save_and_load`, :func:`save_and_load_npz`,
  :func:`save_and_load_hdf5`.

Importing this package needs neither pytest nor any plugin; the pytest
plugin (:mod:`catena.testing.pytest_plugin`) registers the markers and the
``--catena-devices`` option.
"""

from __future__ import annotations

from typing import Any

from catena.testing import (
    array,
    attr,
    backend,
    condition,
    function_link,
    matrix,
    parameterized,
    training,
)
from catena.testing.array import assert_allclose
from catena.testing.backend import BackendConfig, get_backend_configs, inject_backend_tests
from catena.testing.function_link import (
    FunctionTestCase,
    FunctionTestError,
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
from catena.testing.helper import assert_warns, patch, run_module, with_requires, without_requires
from catena.testing.matrix import generate_matrix
from catena.testing.parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
    product,
    product_dict,
)
from catena.testing.random import fix_random, generate_seed
from catena.testing.serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from catena.testing.tolerance import TOLERANCES, tolerances
from catena.testing.training import get_trainer_with_mock_updater
from catena.testing.unary_math import unary_math_function_unittest


def __getattr__(name: str) -> Any:
    # The distribution tests mark their GPU variants, which imports pytest:
    # they load on first use, so that importing catena.testing does not.
    if name == 'distribution_unittest':
        from catena.testing.distribution import distribution_unittest

        return distribution_unittest
    raise AttributeError(f'module catena.testing has no attribute {name!r}')


__all__ = [
    'BackendConfig', 'FunctionTestCase', 'FunctionTestError', 'InitializerArgument',
    'LinkInitializersTestCase', 'LinkTestCase', 'LinkTestError', 'TOLERANCES', 'array',
    'assert_allclose', 'assert_warns', 'attr', 'backend', 'condition', 'distribution_unittest',
    'fix_random', 'from_pytest_parameterize', 'function_link', 'generate_matrix',
    'generate_seed', 'get_backend_configs', 'get_trainer_with_mock_updater',
    'inject_backend_tests', 'matrix', 'parameterize', 'parameterize_pytest', 'parameterized',
    'patch', 'product', 'product_dict', 'run_module', 'save_and_load', 'save_and_load_hdf5',
    'save_and_load_npz', 'tolerances', 'training', 'unary_math_function_unittest',
    'with_requires', 'without_requires',
]
