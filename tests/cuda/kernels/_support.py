"""What the CuPy kernel tests share: registering kernels, interpreting them, counting launches."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy
from tests.cuda.kernels import _c_body

from catena.backends import Kernel, _registry

ACTIVATIONS = ('relu', 'leaky_relu', 'elu', 'sigmoid', 'tanh', 'clipped_relu')
OPTIMIZERS = ('sgd', 'momentum_sgd', 'corrected_momentum_sgd', 'nesterov_ag', 'ada_grad',
              'ada_delta', 'rmsprop', 'rmsprop_graves', 'smorms3', 'msvag', 'adam')
MODULES = tuple(f'activation.{name}' for name in ACTIVATIONS) + tuple(
    f'optimizers.{name}' for name in OPTIMIZERS)

ARRAY_INPUTS = frozenset({'x', 'y', 'gy', 'grad'})
"""The input parameters that take arrays; the other inputs take scalars (checked for
every interpreted launch, and assumed by the NVRTC compile test)."""


def module(name: str) -> Any:
    """Imports ``catena_cuda.kernels.<name>``."""
    return importlib.import_module(f'catena_cuda.kernels.{name}')


def all_specs() -> list[Any]:
    """Every kernel spec of every module, in module order."""
    return [spec for name in MODULES for spec in module(name).SPECS]


@contextlib.contextmanager
def registered(pairs: list[tuple[type, Callable[..., Any]]], array_type: type,
               device_type: type, config_key: str = 'use_cupy_kernels') -> Iterator[None]:
    """Puts kernels into the core's registry for ``array_type`` while the block runs.

    Args:
        pairs: ``(class, kernel)`` pairs, as a module's ``registrations()``.
        array_type: The array type they serve (``numpy.ndarray`` to run them,
            interpreted, on the CPU; ``cupy.ndarray`` on a GPU).
        device_type: The device type recorded in the :class:`Kernel`.
        config_key: The configuration key that gates them.
    """
    table = dict(_registry.kernels.items())  # loads the plugins, replacing the placeholders
    saved = _registry.kernels, _registry.kernel_node_classes
    for node_class, forward in pairs:
        table[(node_class, array_type)] = Kernel(node_class, device_type, forward, config_key)
    _registry.kernels = table
    _registry.kernel_node_classes = frozenset(node_class for node_class, _ in table)
    try:
        yield
    finally:
        _registry.kernels, _registry.kernel_node_classes = saved


def interpret(monkeypatch: Any) -> list[Any]:
    """Makes ``_elementwise.run`` interpret bodies on NumPy arrays; returns the launch log.

    The replacement counts in ``kernels._common.calls`` as the real one does
    and appends every :class:`Launch` to the returned list.
    """
    from catena_cuda.kernels import _common, _elementwise

    launches: list[Any] = []

    def run(launch: Any) -> Any:
        names = [name for _, name in launch.spec.parameters()]
        for name, value in zip(names, launch.inputs):
            assert isinstance(value, numpy.ndarray) == (name in ARRAY_INPUTS), name
        launches.append(launch)
        result = _c_body.run_launch(launch)
        _common.count(launch.spec.name)
        return result

    monkeypatch.setattr(_elementwise, 'run', run)
    return launches


class _CountedKernel:
    """A kernel that records each call before passing it on."""

    def __init__(self, kernel: Any, log: list[str]) -> None:
        self._kernel = kernel
        self._log = log

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._log.append(self._kernel.name)
        return self._kernel(*args, **kwargs)


def count_launches(monkeypatch: Any) -> list[str]:
    """Wraps every kernel ``catena_cuda.elementwise`` makes; returns the log of calls."""
    import catena_cuda

    log: list[str] = []
    make = catena_cuda.elementwise

    def elementwise(*args: Any, **kwargs: Any) -> Any:
        return _CountedKernel(make(*args, **kwargs), log)

    monkeypatch.setattr(catena_cuda, 'elementwise', elementwise)
    return log
