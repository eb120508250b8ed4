"""The test-only ``'@fake'`` device, registered as a built-in plugin.

Its arrays are :class:`FakeArray`, an ``ndarray`` subclass that never decays
to a NumPy scalar (like a GPU array), and its array module wraps NumPy so
that every array it creates is a FakeArray. Tests run every function on it to
prove that the function takes its array module from its inputs, that
transfers work, and that kernels dispatch by device, all without a GPU.
"""

from __future__ import annotations

import types
from typing import Any

import numpy

from catena.backends._device import Device
from catena.plugins import hookimpl


class FakeArray(numpy.ndarray):
    """An array on the ``'@fake'`` device."""

    def __array_wrap__(self, array: Any, context: Any = None,
                       return_scalar: bool = False) -> Any:
        # Keep 0-d results as arrays, as GPU array libraries do.
        if not isinstance(array, numpy.ndarray):
            array = numpy.asarray(array)
        return array.view(FakeArray)

    def __repr__(self) -> str:
        return 'fake_' + repr(self.view(numpy.ndarray))


def _to_fake(value: Any) -> Any:
    if isinstance(value, numpy.ndarray) and not isinstance(value, FakeArray):
        return value.view(FakeArray)
    if isinstance(value, tuple):
        return tuple(_to_fake(v) for v in value)
    if isinstance(value, list) and value and isinstance(value[0], numpy.ndarray):
        return [_to_fake(v) for v in value]
    return value


class _Wrapped:
    """A NumPy callable (function or ufunc) whose array results become FakeArrays."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _to_fake(self._target(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return _wrap(getattr(self._target, name))

    def __repr__(self) -> str:
        return f'<fake {self._target!r}>'


def _wrap(attribute: Any) -> Any:
    if isinstance(attribute, types.ModuleType):
        return _FakeModule(attribute)
    if isinstance(attribute, type) or not callable(attribute):
        return attribute
    return _Wrapped(attribute)


class _FakeModule(types.ModuleType):
    """NumPy (or one of its submodules) seen from the ``'@fake'`` device."""

    def __init__(self, module: types.ModuleType) -> None:
        super().__init__(f'catena_fake.{module.__name__}')
        self._module = module
        self._cache: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        if name.startswith('__'):
            raise AttributeError(name)
        try:
            return self._cache[name]
        except KeyError:
            value = _wrap(getattr(self._module, name))
            self._cache[name] = value
            return value


fake_xp = _FakeModule(numpy)


class FakeDevice(Device):
    """The test-only device ``'@fake'`` (host memory, distinct array type)."""

    prefix = '@fake'
    supported_array_types = (FakeArray,)
    legacy_forward = 'forward_cpu'
    kernel_config_key = None
    test_only = True

    @property
    def xp(self) -> types.ModuleType:
        return fake_xp

    def send_array(self, array: Any) -> Any:
        if isinstance(array, FakeArray):
            return array
        from catena import backend

        host = backend.get_device_from_array(array).to_numpy(array)
        return numpy.array(host, copy=True).view(FakeArray)

    def to_numpy(self, array: Any) -> numpy.ndarray:
        return numpy.array(array.view(numpy.ndarray), copy=True)


@hookimpl
def catena_register_device_types() -> list[type[Device]]:
    return [FakeDevice]


@hookimpl
def catena_test_backend_params() -> list[dict[str, Any]]:
    return [{'device': '@fake'}]
