"""oneDNN primitives over NumPy arrays: memory descriptors, cached operations, execution.

A kernel describes one oneDNN operation by a primitive descriptor and the
arrays it reads and writes. :class:`Operation` turns that into something
callable on NumPy arrays: it creates the primitive once, one memory object
per argument (its data pointer is set at each call, so no copy is made), and
a reorder for each argument whose layout oneDNN wants differently from the
plain C-contiguous array the user holds. :func:`cached` keeps operations per
thread under a key the kernel builds from everything that defines the
primitive (op, shapes, dtypes, parameters, compute mode), so that a training
loop builds each primitive once.

Every array handed in or out is a plain C-contiguous NumPy array; blocked
layouts live only in the operation's private buffers.
"""

from __future__ import annotations

import ctypes
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy

from catena_intel64 import _capi
from catena_intel64._capi import check, lib

_DATA_TYPES = {
    numpy.dtype(numpy.float32): _capi.F32,
    numpy.dtype(numpy.float16): _capi.F16,
    numpy.dtype(numpy.int32): _capi.S32,
    numpy.dtype(numpy.int8): _capi.S8,
    numpy.dtype(numpy.uint8): _capi.U8,
}

CACHE_CAPACITY = 1024
"""How many operations each thread keeps (least recently used ones go first)."""

calls: Counter[str] = Counter()
"""How many times each oneDNN operation ran, by kernel name (for tests and reports)."""

Query = int | tuple[int, int]
"""A ``QUERY_*_MD`` constant, or ``(QUERY_*_MD, index)``."""

_state = threading.local()
_engine_lock = threading.Lock()
_engine: ctypes.c_void_p | None = None


def data_type(dtype: numpy.dtype) -> int | None:
    """Returns oneDNN's ``dnnl_data_type_t`` for a NumPy dtype, or None if it has none."""
    return _DATA_TYPES.get(dtype)


def engine() -> ctypes.c_void_p:
    """Returns the process's CPU engine (created on first call)."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                handle = ctypes.c_void_p()
                check('dnnl_engine_create', ctypes.byref(handle), _capi.ENGINE_CPU, 0)
                _engine = handle
    return _engine


def stream() -> ctypes.c_void_p:
    """Returns this thread's in-order stream on :func:`engine`."""
    handle = getattr(_state, 'stream', None)
    if handle is None:
        handle = ctypes.c_void_p()
        check('dnnl_stream_create', ctypes.byref(handle), engine(), _capi.STREAM_IN_ORDER)
        _state.stream = handle
    return handle


class MemoryDesc:
    """An owned ``dnnl_memory_desc_t`` (destroyed with this object).

    Args:
        handle: The descriptor; this object takes ownership of it.
    """

    __slots__ = ('handle',)

    def __init__(self, handle: ctypes.c_void_p) -> None:
        self.handle = handle

    @classmethod
    def plain(cls, shape: Sequence[int], dtype: numpy.dtype) -> MemoryDesc:
        """The descriptor of a C-contiguous array of ``shape`` and ``dtype``."""
        strides = [1] * len(shape)
        for axis in range(len(shape) - 2, -1, -1):
            strides[axis] = strides[axis + 1] * shape[axis + 1]
        return cls.strided(shape, dtype, strides)

    @classmethod
    def strided(cls, shape: Sequence[int], dtype: numpy.dtype,
                strides: Sequence[int]) -> MemoryDesc:
        """The descriptor of an array of ``shape`` with ``strides`` counted in elements."""
        handle = ctypes.c_void_p()
        check('dnnl_memory_desc_create_with_strides', ctypes.byref(handle), len(shape),
              ctypes.byref(_capi.dims(shape)), _require_type(dtype),
              ctypes.byref(_capi.dims(strides)))
        return cls(handle)

    @classmethod
    def any(cls, shape: Sequence[int], dtype: numpy.dtype | str) -> MemoryDesc:
        """A descriptor that lets the primitive choose the layout (``format_tag::any``).

        ``dtype`` may be :data:`BFLOAT16`: the primitive then computes on
        bfloat16 copies that :class:`Operation` converts from (or to) the
        float32 arrays it is given.
        """
        handle = ctypes.c_void_p()
        check('dnnl_memory_desc_create_with_tag', ctypes.byref(handle), len(shape),
              ctypes.byref(_capi.dims(shape)), _require_type(dtype), _capi.FORMAT_ANY)
        return cls(handle)

    @classmethod
    def tagged(cls, shape: Sequence[int], dtype: numpy.dtype | str, tag: int) -> MemoryDesc:
        """A descriptor of the layout named by ``tag`` (a ``_capi.FORMAT_*`` constant)."""
        handle = ctypes.c_void_p()
        check('dnnl_memory_desc_create_with_tag', ctypes.byref(handle), len(shape),
              ctypes.byref(_capi.dims(shape)), _require_type(dtype), tag)
        return cls(handle)

    @classmethod
    def copy_of(cls, handle: int | ctypes.c_void_p) -> MemoryDesc:
        """An owned copy of a descriptor owned by something else (a query result)."""
        clone = ctypes.c_void_p()
        check('dnnl_memory_desc_clone', ctypes.byref(clone), handle)
        return cls(clone)

    @property
    def nbytes(self) -> int:
        """The size in bytes of memory with this descriptor."""
        return int(lib.dnnl_memory_desc_get_size(self.handle))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryDesc):
            return NotImplemented
        return bool(lib.dnnl_memory_desc_equal(self.handle, other.handle))

    __hash__ = None  # type: ignore[assignment]

    def __del__(self) -> None:
        if self.handle:
            lib.dnnl_memory_desc_destroy(self.handle)


BFLOAT16 = 'bfloat16'
"""Stands for oneDNN's bf16 data type, which NumPy lacks, in :meth:`MemoryDesc.any`."""


def _require_type(dtype: numpy.dtype | str) -> int:
    if isinstance(dtype, str) and dtype == BFLOAT16:
        return _capi.BF16
    value = _DATA_TYPES.get(numpy.dtype(dtype))
    if value is None:
        raise TypeError(f'oneDNN has no data type for {numpy.dtype(dtype)}')
    return value


class PrimitiveDesc:
    """An owned ``dnnl_primitive_desc_t``.

    Args:
        function: The ``dnnl_*_primitive_desc_create`` function's name.
        args: Its arguments after the output pointer; a :class:`MemoryDesc`,
            or :class:`PrimitiveDesc` stands for its
            handle, None for a null pointer.

    Raises:
        DnnlError: oneDNN has no implementation for these arguments
            (``status`` ``UNIMPLEMENTED``) or rejects them.
    """

    __slots__ = ('handle', '_keep')

    def __init__(self, function: str, *args: Any) -> None:
        self.handle = ctypes.c_void_p()
        self._keep = args
        converted = [_as_handle(arg) for arg in args]
        check(function, ctypes.byref(self.handle), *converted)

    def query_md(self, what: int, index: int = 0) -> MemoryDesc:
        """The memory descriptor the primitive uses for ``what`` (a ``QUERY_*_MD``)."""
        handle = lib.dnnl_primitive_desc_query_md(self.handle, what, index)
        if not handle:
            raise KeyError(f'the primitive descriptor has no memory descriptor {what}')
        return MemoryDesc.copy_of(handle)

    @property
    def implementation(self) -> str:
        """oneDNN's name of the implementation it chose, such as ``'brg:avx512_core'``."""
        name = ctypes.c_char_p()
        check('dnnl_primitive_desc_query', self.handle, _capi.QUERY_IMPL_INFO_STR, 0,
              ctypes.byref(name))
        return (name.value or b'').decode()

    def __del__(self) -> None:
        if self.handle:
            lib.dnnl_primitive_desc_destroy(self.handle)


def _as_handle(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, (MemoryDesc, PrimitiveDesc)):
        return value.handle
    if isinstance(value, _capi.Dims):
        return ctypes.byref(value)
    return value


class _Memory:
    """A ``dnnl_memory_t`` without data of its own: its pointer is set before each use."""

    __slots__ = ('handle', 'desc')

    def __init__(self, desc: MemoryDesc) -> None:
        self.desc = desc
        self.handle = ctypes.c_void_p()
        check('dnnl_memory_create', ctypes.byref(self.handle), desc.handle, engine(), None)

    def point_to(self, address: int) -> None:
        lib.dnnl_memory_set_data_handle(self.handle, address)

    def __del__(self) -> None:
        if self.handle:
            lib.dnnl_memory_destroy(self.handle)


class _Primitive:
    """A created primitive and the execution arguments it is called with."""

    __slots__ = ('handle', 'pd', 'args', '_count', '_memories')

    def __init__(self, pd: PrimitiveDesc, args: Sequence[tuple[int, _Memory]]) -> None:
        self.pd = pd
        self.handle = ctypes.c_void_p()
        check('dnnl_primitive_create', ctypes.byref(self.handle), pd.handle)
        self._count = len(args)
        self._memories = [memory for _, memory in args]
        self.args = (_capi.ExecArg * len(args))(
            *[_capi.ExecArg(arg, memory.handle) for arg, memory in args])

    def run(self) -> None:
        status = lib.dnnl_primitive_execute(self.handle, stream(), self._count, self.args)
        if status != _capi.SUCCESS:
            raise _capi.DnnlError('dnnl_primitive_execute', status)

    def __del__(self) -> None:
        if self.handle:
            lib.dnnl_primitive_destroy(self.handle)


def _query(pd: PrimitiveDesc, query: Query) -> MemoryDesc:
    if isinstance(query, tuple):
        return pd.query_md(*query)
    return pd.query_md(query)


def _reorder(source: _Memory, target: _Memory) -> _Primitive:
    pd = PrimitiveDesc('dnnl_reorder_primitive_desc_create', source.desc, engine(),
                       target.desc, engine(), None)
    return _Primitive(pd, [(_capi.ARG_SRC, source), (_capi.ARG_DST, target)])


class Operation:
    """One oneDNN primitive made callable on plain NumPy arrays.

    Args:
        name: The kernel's name, counted in :data:`calls` at each run.
        pd: The primitive descriptor.
        dtype: The dtype of the arrays the operation reads and writes.
        inputs: ``(DNNL_ARG_*, shape, query)`` of each array the primitive
            reads, in the order :meth:`__call__` takes them; ``query`` is a
            ``QUERY_*_MD`` or a ``(QUERY_*_MD, index)`` pair (the bias is
            ``(QUERY_WEIGHTS_MD, 1)``). A :class:`MemoryDesc` in place of
            the shape describes the caller's array itself (a strided view),
            which is then never reordered.
        outputs: The same for each array it writes.
        internal: ``(DNNL_ARG_*, query)`` of each buffer that only the
            primitive uses (a workspace); :meth:`__call__` takes them after
            the outputs, as arrays of :attr:`internal_nbytes` bytes.

    An argument whose layout the primitive chose differently from the plain
    array (a blocked layout) is reordered into (or out of) a temporary
    buffer around the run. Temporary buffers live in one scratch area per
    thread, shared by all operations, so that caching many operations does
    not keep a copy of every activation alive.
    """

    def __init__(self, name: str, pd: PrimitiveDesc, dtype: numpy.dtype,
                 inputs: Sequence[tuple[int, Sequence[int] | MemoryDesc, Query]],
                 outputs: Sequence[tuple[int, Sequence[int] | MemoryDesc, Query]] = (),
                 internal: Sequence[tuple[int, Query]] = ()) -> None:
        self.name = name
        self.pd = pd
        self.implementation = pd.implementation
        self._user: list[_Memory] = []
        self._before: list[_Primitive] = []
        self._after: list[_Primitive] = []
        self._temporary: list[tuple[_Memory, int]] = []
        self._scratch_nbytes = 0
        self._scratch_address = 0
        args: list[tuple[int, _Memory]] = []
        for arg, shape, query in inputs:
            args.append((arg, self._bind(shape, dtype, _query(pd, query), into=True)))
        for arg, shape, query in outputs:
            args.append((arg, self._bind(shape, dtype, _query(pd, query), into=False)))
        self.internal_nbytes: list[int] = []
        for arg, query in internal:
            desc = _query(pd, query)
            memory = _Memory(desc)
            self._user.append(memory)
            self.internal_nbytes.append(desc.nbytes)
            args.append((arg, memory))
        self._primitive = _Primitive(pd, args)

    def _bind(self, shape: Sequence[int] | MemoryDesc, dtype: numpy.dtype,
              wanted: MemoryDesc, into: bool) -> _Memory:
        plain = shape if isinstance(shape, MemoryDesc) else MemoryDesc.plain(shape, dtype)
        user = _Memory(plain)
        self._user.append(user)
        if wanted == plain:
            return user
        temporary = _Memory(wanted)
        self._temporary.append((temporary, self._scratch_nbytes))
        self._scratch_nbytes += -(-wanted.nbytes // _ALIGNMENT) * _ALIGNMENT
        if into:
            self._before.append(_reorder(user, temporary))
        else:
            self._after.append(_reorder(temporary, user))
        return temporary

    def __call__(self, *arrays: numpy.ndarray) -> None:
        """Runs the primitive on ``arrays``: inputs, then outputs, then internal buffers.

        Every array must be C-contiguous with the shape and dtype the
        operation was built for (the caller's key guarantees it).
        """
        for memory, array in zip(self._user, arrays):
            memory.point_to(array.ctypes.data)
        if self._temporary:
            address = _scratch(self._scratch_nbytes)
            if address != self._scratch_address:
                for memory, offset in self._temporary:
                    memory.point_to(address + offset)
                self._scratch_address = address
        for reorder in self._before:
            reorder.run()
        self._primitive.run()
        for reorder in self._after:
            reorder.run()
        calls[self.name] += 1


_ALIGNMENT = 64


def _scratch(nbytes: int) -> int:
    """The 64-byte aligned address of this thread's scratch area of at least ``nbytes``."""
    area = getattr(_state, 'scratch', None)
    if area is None or area.nbytes < nbytes + _ALIGNMENT:
        area = _state.scratch = numpy.empty(nbytes + _ALIGNMENT, numpy.uint8)
    address: int = area.ctypes.data
    return address + -address % _ALIGNMENT


def cached(key: Hashable, build: Callable[[], Operation | None]) -> Operation | None:
    """Returns this thread's operation for ``key``, built by ``build()`` on first use.

    ``build`` returns None when oneDNN has no implementation (that answer is
    cached too, so an unsupported case costs one dictionary lookup after the
    first call).
    """
    table = getattr(_state, 'operations', None)
    if table is None:
        table = _state.operations = OrderedDict()
    try:
        operation = table[key]
    except KeyError:
        pass
    else:
        table.move_to_end(key)
        return operation
    try:
        operation = build()
    except _capi.DnnlError as error:
        if error.status != _capi.UNIMPLEMENTED:
            raise
        operation = None
    table[key] = operation
    if len(table) > CACHE_CAPACITY:
        table.popitem(last=False)
    return operation


def clear_cache() -> None:
    """Forgets this thread's cached operations (their primitives are destroyed)."""
    _state.operations = OrderedDict()
