"""Sending arrays and nested structures of arrays between devices."""

from __future__ import annotations

from typing import Any

from catena.backends._device import Device


def send(arrays: Any, device: Device) -> Any:
    """Returns ``arrays`` (an array, None, or a nested tuple/list/dict) on ``device``."""
    if arrays is None:
        return None
    if isinstance(arrays, tuple):
        return tuple(send(a, device) for a in arrays)
    if isinstance(arrays, list):
        return [send(a, device) for a in arrays]
    if isinstance(arrays, dict):
        return {key: send(value, device) for key, value in arrays.items()}
    return device.send_array(arrays)
