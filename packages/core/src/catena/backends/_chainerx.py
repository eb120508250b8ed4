"""``catena.backends._chainerx``: Chainer's ChainerX glue, for a catena without ChainerX.

catena does not support ChainerX (docs/compat.md). :class:`ChainerxDevice`
exists so that ``isinstance(device, backend.ChainerxDevice)`` is simply
False; making one raises. No array is a ChainerX array, so :func:`from_chx`
returns its argument unchanged and :func:`to_chx` raises for any array.
"""

from __future__ import annotations

from typing import Any

from catena.backends._absent import ChainerxDevice


def from_chx(array: Any) -> Any:
    """Returns ``array`` unchanged: there are no ChainerX arrays to convert.

    Args:
        array: An array, None, or a list or tuple of them.
    """
    return array


def to_chx(array: Any) -> Any:
    """Converts arrays to ChainerX, which catena does not support.

    Args:
        array: An array, None, or a list or tuple of them.

    Returns:
        None (or a list or tuple of Nones) when no array is given.

    Raises:
        RuntimeError: Some element is an array; ChainerX is not supported.
    """
    if isinstance(array, (list, tuple)):
        return type(array)(to_chx(item) for item in array)
    if array is None:
        return None
    raise RuntimeError(ChainerxDevice.missing)


__all__ = ['ChainerxDevice', 'from_chx', 'to_chx']
