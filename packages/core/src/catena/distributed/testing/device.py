"""The device a ChainerMN-style test runs on."""

from __future__ import annotations

from typing import Any

from catena import backend


def get_device(device_id: int | None = None, use_chainerx: bool = False) -> Any:
    """Returns the device for a test: NumPy, or the GPU ``device_id`` (CuPy).

    Args:
        device_id: A GPU id, or None for the CPU.
        use_chainerx: Ask for the ChainerX device of the same kind
            (``native:0`` or ``cuda:<id>``); without ChainerX it fails as
            :func:`catena.get_device` does for such a specifier.

    Returns:
        The :class:`catena.backend.Device`.
    """
    if device_id is None:
        spec = 'native:0' if use_chainerx else '@numpy'
    else:
        spec = f'cuda:{device_id}' if use_chainerx else f'@cupy:{device_id}'
    return backend.get_device(spec)
