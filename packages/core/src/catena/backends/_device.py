"""The :class:`Device` interface that every backend implements."""

from __future__ import annotations

import types
from typing import Any, ClassVar

import numpy


class Device:
    """A place where arrays live and computations run.

    Each backend subclasses :class:`Device` and registers the class through the
    ``catena_register_device_types`` hook. A device is named by a spec string
    such as ``'@numpy'``, ``'@cupy:0'`` or ``'@intel64'``; ``str(device)`` gives
    it, and two devices are equal when their specs are.

    Class attributes a subclass defines:

    * ``prefix``: the spec prefix, for example ``'@cupy'``.
    * ``supported_array_types``: the array classes that live on this kind of
      device; :func:`catena.get_device_from_array` maps them back to it.
    * ``legacy_forward``: the name of the :class:`~catena.FunctionNode` method
      that old-style nodes implement for this kind (``'forward_cpu'`` or
      ``'forward_gpu'``).
    * ``kernel_config_key``: the configuration key (``'use_cudnn'``,
      ``'use_ideep'``) that gates this kind's registered kernels, or None when
      its kernels always apply.
    * ``test_only``: True for a device that exists for tests (``'@fake'``);
      ``python -m catena info`` lists it only with ``--verbose``.
    """

    prefix: ClassVar[str] = ''
    supported_array_types: ClassVar[tuple[type, ...]] = ()
    legacy_forward: ClassVar[str] = 'forward_cpu'
    kernel_config_key: ClassVar[str | None] = None
    test_only: ClassVar[bool] = False

    @classmethod
    def parse(cls, rest: str | None) -> Device:
        """Builds a device from the part of a spec after ``prefix``.

        Args:
            rest: What followed ``':'`` in the spec (``'0'`` in ``'@cupy:0'``),
                or None when the spec was the bare prefix.

        Returns:
            Device: The device the spec names.
        """
        if rest is not None:
            raise ValueError(f'device {cls.prefix!r} takes no index, got {cls.prefix}:{rest}')
        return cls()

    @classmethod
    def from_array(cls, array: Any) -> Device | None:
        """Returns the device of ``array``, or None if ``array`` does not live on this kind.

        The default answers ``cls()`` for instances of ``supported_array_types``.
        """
        if isinstance(array, cls.supported_array_types):
            return cls()
        return None

    @classmethod
    def from_legacy_id(cls, device_id: int) -> Device | None:
        """Returns the device for a Chainer-style integer id, or None if not ours."""
        return None

    @classmethod
    def from_native(cls, device: Any) -> Device | None:
        """Returns the device for a backend's own device object, or None if not ours.

        :func:`catena.get_device` asks every registered device type, so that
        for example a :class:`cupy.cuda.Device` names its ``'@cupy:N'``.
        """
        return None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Says why this kind of device cannot be used here, or None if it can."""
        return None

    @property
    def xp(self) -> types.ModuleType:
        """The array module (NumPy-compatible) for arrays on this device."""
        raise NotImplementedError(f'{type(self).__name__} does not define xp')

    @property
    def name(self) -> str:
        """The canonical spec string of this device."""
        return self.prefix

    def create_context(self) -> Any:
        """Returns a context manager that makes this device current (default: none)."""
        import contextlib

        return contextlib.nullcontext()

    def send_array(self, array: Any) -> Any:
        """Returns ``array`` on this device; ``array`` may live on any device."""
        raise NotImplementedError(f'{type(self).__name__} does not define send_array')

    def to_numpy(self, array: Any) -> numpy.ndarray:
        """Returns a NumPy copy (or view) of ``array``, which lives on this device."""
        return numpy.asarray(array)

    def synchronize(self) -> None:
        """Waits until the device finished all queued work (no effect by default)."""

    def use(self) -> None:
        """Makes this device the current one of its kind (no effect by default)."""

    def is_array_supported(self, array: Any) -> bool:
        """Whether ``array`` lives on this very device."""
        return isinstance(array, self.supported_array_types) and \
            type(self).from_array(array) == self

    def send(self, arrays: Any) -> Any:
        """Transfers an array, or a (nested) tuple, list or dict of arrays, here.

        Args:
            arrays: An array or a nested structure of arrays; None and other
                leaves are passed through unchanged.

        Returns:
            The same structure with every array on this device.
        """
        from catena.backends import _transfer

        return _transfer.send(arrays, self)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.name}>'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.name == self.name

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.name)

    def __enter__(self) -> None:
        raise RuntimeError(
            'A Device cannot be used as a context manager. '
            'Use catena.using_device(device) instead.')

    def __exit__(self, *args: Any) -> None:  # pragma: no cover - __enter__ raises
        pass
