"""Packing many small arrays (gradients, parameters) into a few large flat buffers.

One collective call on a large buffer costs far less than one call per small
array: each call pays the network latency once. The arrays are grouped by array
module and dtype, then filled in order into buckets of at most ``bucket_bytes``
bytes (a bucket always holds at least one array, so an array larger than the
limit gets a bucket of its own; ``None`` means no limit: one bucket per group).
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Sequence
from typing import Any

import numpy

from catena import backend


@dataclasses.dataclass(frozen=True)
class Bucket:
    """The layout of one flat buffer.

    Attributes:
        xp: The array module of the buffer (that of its arrays).
        dtype: The dtype of the buffer.
        members: ``(array index, offset, size)`` for each array, in elements.
        size: The number of elements of the buffer.
    """

    xp: types.ModuleType
    dtype: numpy.dtype
    members: tuple[tuple[int, int, int], ...]
    size: int


def plan_buckets(arrays: Sequence[Any], dtype: Any = None,
                 bucket_bytes: int | None = None) -> list[Bucket]:
    """Lays ``arrays`` out in buckets.

    Args:
        arrays: The arrays to pack.
        dtype: The dtype of the buffers, or None for each array's own dtype.
        bucket_bytes: The largest bucket in bytes, or None for no limit.

    Returns:
        The buckets, grouped by (array module, buffer dtype) in order of first
        appearance, arrays in their given order within a group.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    modules: dict[str, types.ModuleType] = {}
    for index, array in enumerate(arrays):
        xp = backend.get_array_module(array)
        buffer_dtype = numpy.dtype(array.dtype if dtype is None else dtype)
        key = (getattr(xp, '__name__', repr(xp)), buffer_dtype.str)
        modules[key[0]] = xp
        groups.setdefault(key, []).append(index)

    buckets = []
    for (module_name, dtype_str), indices in groups.items():
        buffer_dtype = numpy.dtype(dtype_str)
        members: list[tuple[int, int, int]] = []
        filled = 0
        for index in indices:
            size = int(arrays[index].size)
            if (members and bucket_bytes is not None
                    and (filled + size) * buffer_dtype.itemsize > bucket_bytes):
                buckets.append(Bucket(modules[module_name], buffer_dtype, tuple(members), filled))
                members, filled = [], 0
            members.append((index, filled, size))
            filled += size
        buckets.append(Bucket(modules[module_name], buffer_dtype, tuple(members), filled))
    return buckets


class Packer:
    """Copies arrays into bucket buffers and back, keeping the buffers between calls.

    The layout is planned again only when the arrays' shapes, dtypes or
    modules, the buffer dtype or the bucket size change. Each bucket is filled
    with one concatenation (which also casts), and the views that
    :meth:`unpack` copies from are made once per layout.

    A ``scale`` given to :meth:`pack` is applied where it costs least and
    loses nothing: while packing when the bucket casts to another dtype (so
    that values that only fit the narrower dtype once scaled survive) or is
    float16 (so that a float16 sum of the buffers overflows only where the
    scaled sum would); otherwise while unpacking, where multiplying replaces
    the copy. Either way, summing the buffers between :meth:`pack` and
    :meth:`unpack` yields ``scale`` times the sum.

    Args:
        bucket_bytes: The largest bucket in bytes, or None for no limit.
    """

    def __init__(self, bucket_bytes: int | None = None) -> None:
        self.bucket_bytes = bucket_bytes
        self._key: tuple[Any, ...] | None = None
        self._buckets: list[Bucket] = []
        self._buffers: list[Any] = []
        self._views: list[list[Any]] = []
        self._staging: dict[int, Any] = {}
        self._unpack_scales: list[float | None] = []

    @property
    def buckets(self) -> list[Bucket]:
        """The layout used by the last :meth:`pack`."""
        return list(self._buckets)

    def pack(self, arrays: Sequence[Any], dtype: Any = None,
             scale: float | None = None) -> list[Any]:
        """Copies ``arrays`` into the buffers, cast to ``dtype``.

        Args:
            arrays: The arrays.
            dtype: The buffer dtype, or None for each array's own dtype.
            scale: A factor for the values, or None; see the class
                description for where it is applied.

        Returns:
            The flat buffers, one per bucket.
        """
        key = (tuple([(type(a), a.shape, a.dtype) for a in arrays]),
               None if dtype is None else numpy.dtype(dtype).str, self.bucket_bytes)
        if key != self._key:
            self._plan(arrays, dtype)
            self._key = key
        self._unpack_scales = []
        for number, (bucket, buffer) in enumerate(zip(self._buckets, self._buffers)):
            sources = (arrays if len(bucket.members) == len(arrays)
                       else [arrays[index] for index, _, _ in bucket.members])
            source_dtype = sources[0].dtype
            unpack_scale = None
            if scale is not None and source_dtype != bucket.dtype:
                staging = self._staging.get(number)
                if staging is None or staging.dtype != source_dtype:
                    staging = self._staging[number] = bucket.xp.empty(bucket.size,
                                                                      dtype=source_dtype)
                _concatenate(bucket.xp, sources, staging)
                bucket.xp.multiply(staging, source_dtype.type(scale), out=buffer,
                                   casting='same_kind')
            else:
                _concatenate(bucket.xp, sources, buffer)
                if scale is not None and bucket.dtype.itemsize <= 2:
                    buffer *= buffer.dtype.type(scale)
                elif scale is not None:
                    unpack_scale = scale
            self._unpack_scales.append(unpack_scale)
        return list(self._buffers)

    def unpack(self, arrays: Sequence[Any]) -> None:
        """Copies the buffers back into ``arrays`` (the arrays given to :meth:`pack`)."""
        for bucket, views, scale in zip(self._buckets, self._views, self._unpack_scales):
            if scale is None:
                for (index, _, _), view in zip(bucket.members, views):
                    arrays[index][...] = view
                continue
            multiply, factor = bucket.xp.multiply, bucket.dtype.type(scale)
            for (index, _, _), view in zip(bucket.members, views):
                multiply(view, factor, out=arrays[index])

    def release(self) -> None:
        """Frees the buffers."""
        self._key = None
        self._buckets = []
        self._buffers = []
        self._views = []
        self._staging = {}
        self._unpack_scales = []

    def _plan(self, arrays: Sequence[Any], dtype: Any) -> None:
        self._buckets = plan_buckets(arrays, dtype, self.bucket_bytes)
        self._buffers = [b.xp.empty(b.size, dtype=b.dtype) for b in self._buckets]
        self._views = [[buffer[offset:offset + size].reshape(arrays[index].shape)
                        for index, offset, size in bucket.members]
                       for bucket, buffer in zip(self._buckets, self._buffers)]
        self._staging = {}


def _concatenate(xp: types.ModuleType, sources: Sequence[Any], out: Any) -> None:
    if len(sources) == 1:
        out[...] = sources[0].reshape(-1)
    else:
        xp.concatenate(sources, axis=None, out=out, casting='same_kind')
