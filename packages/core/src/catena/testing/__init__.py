"""Public test helpers (``catena.testing``), so that plugins test the way the core does.

* Declarative op tests that run on every device: :class:`FunctionTestCase`,
  :class:`LinkTestCase`, with the device matrix from the
  ``catena_test_backend_params`` hook (:class:`BackendConfig`,
  :func:`inject_backend_tests`) and one tolerance table
  (:func:`tolerances`).
* Assertions on arrays of any device: :func:`assert_allclose`.
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

from catena.testing import attr, condition
from catena.testing.array import assert_allclose
from catena.testing.backend import BackendConfig, get_backend_configs, inject_backend_tests
from catena.testing.function_link import FunctionTestCase, LinkTestCase
from catena.testing.helper import patch, with_requires, without_requires
from catena.testing.parameterized import parameterize, product, product_dict
from catena.testing.random import fix_random, generate_seed
from catena.testing.serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from catena.testing.tolerance import TOLERANCES, tolerances

__all__ = [
    'BackendConfig', 'FunctionTestCase', 'LinkTestCase', 'TOLERANCES', 'assert_allclose', 'attr',
    'condition', 'fix_random', 'generate_seed', 'get_backend_configs', 'inject_backend_tests',
    'parameterize', 'patch', 'product', 'product_dict', 'save_and_load', 'save_and_load_hdf5',
    'save_and_load_npz', 'tolerances', 'with_requires', 'without_requires',
]
