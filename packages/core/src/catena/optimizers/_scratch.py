"""A reusable work array, so that hot update rules allocate nothing per step."""

from __future__ import annotations

from typing import Any

from catena import backend


class ScratchBuffer:
    """Holds one work array, reallocated only when the array it mimics changes.

    The buffer is a cache, not state: it is never saved, and copies or
    unpickled rules start with an empty one.
    """

    __slots__ = ('_array',)

    def __init__(self) -> None:
        self._array: Any = None

    def like(self, array: Any) -> Any:
        """Returns a work array of the shape, dtype and device of ``array``.

        Its contents are undefined; the caller overwrites them.

        Args:
            array: The array to mimic (NumPy or a device array).

        Returns:
            The buffer.
        """
        buf = self._array
        if (buf is None or buf.shape != array.shape or buf.dtype != array.dtype
                or buf.__class__ is not array.__class__
                or getattr(buf, 'device', None) != getattr(array, 'device', None)):
            buf = self._array = backend.get_array_module(array).empty_like(array)
        return buf

    def __copy__(self) -> ScratchBuffer:
        return ScratchBuffer()

    def __deepcopy__(self, memo: dict[int, Any]) -> ScratchBuffer:
        return ScratchBuffer()

    def __reduce__(self) -> tuple[type[ScratchBuffer], tuple[()]]:
        return ScratchBuffer, ()
