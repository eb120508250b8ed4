"""Reproducible randomness in tests (``testing.fix_random``, ``testing.generate_seed``).

Tests written in Chainer's style draw from NumPy's global generator
(``numpy.random.uniform``); fixing randomness means seeding that legacy
global state, hence the NPY002 exemption of this module.
"""
# ruff: noqa: NPY002

from __future__ import annotations

import contextlib
import functools
import os
import random as _py_random
import threading
import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy

_state = threading.local()

NONDETERMINISTIC_ENV = 'CATENA_TEST_RANDOM_NONDETERMINISTIC'


def is_fixed() -> bool:
    """Whether the calling thread runs inside :func:`fix_random`."""
    return getattr(_state, 'depth', 0) > 0


def _seed_devices(seed: int) -> None:
    """Seeds the random generators of the other available devices' array modules."""
    from catena.backends import _registry
    from catena.plugins import _manager

    if not _manager.is_loaded():
        return
    for device_type in _registry.device_types_by_prefix.values():
        if device_type.unavailable_reason() is not None:
            continue
        try:
            xp = device_type.parse(None).xp
        except Exception:  # noqa: BLE001 - a device that cannot be built has no generator
            continue
        if xp is numpy:
            continue
        seed_function = getattr(getattr(xp, 'random', None), 'seed', None)
        if seed_function is not None:
            seed_function(seed)


@contextlib.contextmanager
def _fixed(seed: int) -> Iterator[None]:
    if os.environ.get(NONDETERMINISTIC_ENV, '').strip() not in ('', '0'):
        seed = int.from_bytes(os.urandom(4), 'little')
    numpy_state = numpy.random.get_state()
    python_state = _py_random.getstate()
    numpy.random.seed(seed)
    _py_random.seed(seed)
    _seed_devices(seed)
    _state.depth = getattr(_state, 'depth', 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1
        numpy.random.set_state(numpy_state)
        _py_random.setstate(python_state)


def _wrap_class(cls: type, seed: int) -> type:
    if issubclass(cls, unittest.TestCase):
        setup_name, teardown_name = 'setUp', 'tearDown'
    else:
        setup_name, teardown_name = 'setup_method', 'teardown_method'
    setup = getattr(cls, setup_name, None)
    teardown = getattr(cls, teardown_name, None)

    def set_up(self: Any, *args: Any) -> None:
        context = _fixed(seed)
        context.__enter__()
        self.__dict__.setdefault('_catena_random_contexts', []).append(context)
        if setup is not None:
            setup(self, *args)

    def tear_down(self: Any, *args: Any) -> None:
        try:
            if teardown is not None:
                teardown(self, *args)
        finally:
            contexts = self.__dict__.get('_catena_random_contexts')
            if contexts:
                contexts.pop().__exit__(None, None, None)

    set_up.__name__ = setup_name
    tear_down.__name__ = teardown_name
    setattr(cls, setup_name, set_up)
    setattr(cls, teardown_name, tear_down)
    return cls


def fix_random(*, seed: int = 0) -> Callable[[Any], Any]:
    """Seeds the random generators for a test function or every test of a class.

    NumPy's global generator, Python's :mod:`random` and the generators of
    the other available devices' array modules are seeded with ``seed``
    before the test (before ``setUp``/``setup_method`` for a class) and
    NumPy's and Python's states are restored after it. Set
    ``CATENA_TEST_RANDOM_NONDETERMINISTIC=1`` to use a fresh random seed
    instead (to look for tests that pass by luck).

    Args:
        seed: The seed.

    .. admonition:: Example

        >>> @testing.fix_random()
        ... class TestNoise(unittest.TestCase):
        ...     def test_noise(self):
        ...         assert np.random.uniform() == 0.5488135039273248
    """

    def decorator(target: Any) -> Any:
        if isinstance(target, type):
            return _wrap_class(target, seed)
        if not callable(target):
            raise TypeError(f'fix_random decorates test functions and classes; got {target!r}')

        @functools.wraps(target)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with _fixed(seed):
                return target(*args, **kwargs)

        return wrapper

    return decorator


def generate_seed() -> int:
    """Returns a seed drawn from NumPy's global generator (in ``[0, 2**32)``).

    Inside :func:`fix_random` it is reproducible; use it to seed other
    generators (``numpy.random.default_rng(testing.generate_seed())``).
    """
    return int(numpy.random.randint(0, 2 ** 32, dtype=numpy.uint64))


__all__ = ['fix_random', 'generate_seed']
