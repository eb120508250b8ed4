"""GPU function hooks: CuPy memory profiling and NVTX ranges.

* :class:`CupyMemoryProfileHook` records, for every function call, the bytes
  that CuPy's memory pool handed out and the bytes it had to acquire from
  the GPU, in forward and in backward.
* :class:`CUDAProfileHook` wraps each function's forward and backward in an
  NVTX range, so that NVIDIA Nsight Systems shows them on its timeline.

The core serves both as ``catena.function_hooks.CupyMemoryProfileHook`` and
``catena.function_hooks.CUDAProfileHook`` when catena-cuda is installed.
Importing this module does not import CuPy; creating a hook does, and
raises :class:`RuntimeError` when CUDA is not usable here.

Every call into CuPy goes through the small module-level functions below
(``_memory_counter``, ``_start_counting``, ``_stop_counting``,
``_read_counter``, ``_check_nvtx``, ``_range_push``, ``_range_pop``), the
only places that touch the GPU.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, TextIO

from catena import function_hook
from catena_cuda import _runtime

BYTE_UNITS = ('B', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB')
"""The units of :meth:`CupyMemoryProfileHook.print_report`, each 1024 times the last."""

_FACTORS = {unit: 1024 ** power for power, unit in enumerate(BYTE_UNITS)}


# ---------------------------------------------------------------------------
# CuPy access (replaced by fakes in CPU tests)
# ---------------------------------------------------------------------------

@functools.cache
def _counter_class(memory_hook_base: type) -> type:
    class _ByteCounter(memory_hook_base):  # type: ignore[misc, valid-type]
        """A CuPy memory hook adding up the bytes of every pool allocation."""

        def __init__(self, name: str) -> None:
            self.name = name
            self.used_bytes = 0
            self.acquired_bytes = 0

        def malloc_preprocess(self, **kwargs: Any) -> None:
            self.used_bytes += kwargs['mem_size']

        def alloc_preprocess(self, **kwargs: Any) -> None:
            self.acquired_bytes += kwargs['mem_size']

    return _ByteCounter


def _memory_counter(name: str) -> Any:
    """Returns a new CuPy memory hook named ``name`` that counts bytes (not installed).

    Its ``used_bytes`` grows by the rounded size of every block that a CuPy
    memory pool hands out, and its ``acquired_bytes`` by the size of every
    block that the pool allocates from the GPU (a miss in its cache).

    Raises:
        RuntimeError: CuPy or a GPU is missing.
    """
    cupy = _runtime.cupy_module()
    return _counter_class(cupy.cuda.memory_hook.MemoryHook)(name)


def _start_counting(counter: Any) -> None:
    """Installs ``counter`` as a CuPy memory hook of the calling thread."""
    counter.__enter__()


def _stop_counting(counter: Any) -> None:
    """Removes ``counter`` from the calling thread's CuPy memory hooks."""
    counter.__exit__(None, None, None)


def _read_counter(counter: Any) -> tuple[int, int]:
    """Returns ``(used bytes, acquired bytes)`` counted by ``counter`` so far."""
    return int(counter.used_bytes), int(counter.acquired_bytes)


def _check_nvtx() -> None:
    """Raises :class:`RuntimeError` unless CuPy, a GPU and NVTX are available."""
    cupy = _runtime.cupy_module()
    if not getattr(cupy.cuda.nvtx, 'available', False):
        raise RuntimeError('CUDAProfileHook needs NVTX, which this CuPy installation cannot '
                           'load (cupy.cuda.nvtx.available is False); install the NVTX '
                           'library of the CUDA toolkit')


def _range_push(message: str) -> None:
    """Opens a nested NVTX range named ``message``."""
    _runtime.cupy_module().cuda.nvtx.RangePush(message)


def _range_pop() -> None:
    """Closes the innermost NVTX range."""
    _runtime.cupy_module().cuda.nvtx.RangePop()


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _impl_name(function: Any) -> str:
    """The class name of the function (of the wrapped Function for an adapter)."""
    adapted = getattr(function, '_function', None)
    return type(adapted if adapted is not None else function).__name__


def choose_unit(size: float) -> tuple[int, str]:
    """The largest unit in which ``size`` bytes is at least 1 (else B), with its factor.

    Args:
        size: A number of bytes.

    Returns:
        tuple: ``(factor, unit)``, as ``(1048576, 'MB')`` for 5 MiB.
    """
    for unit in reversed(BYTE_UNITS):
        if size >= _FACTORS[unit]:
            return _FACTORS[unit], unit
    return 1, 'B'


# ---------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------

class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Measures the memory that each function takes from CuPy's memory pool.

    Each forward or backward call adds ``(function name, used bytes,
    acquired bytes, depth)`` to :attr:`call_history`, as Chainer v7 does.
    *Used bytes* is the total size of the blocks the function took from the
    CuPy memory pool (whether or not it freed them again), *acquired bytes*
    the part of it that the pool had to allocate from the GPU because its
    cache had no free block. *Depth* is 0 for a call made outside any other
    hooked call and grows by one for each enclosing call (a backward that
    applies other functions); :meth:`total_used_bytes` and
    :meth:`total_acquired_bytes` add up the depth-0 calls only, while
    :meth:`summary` and :meth:`print_report` list every call.

    The bytes are counted by a CuPy memory hook, which sees allocations made
    through CuPy's memory pools (the default allocator) by the thread that
    registered this hook; with another allocator (``cupy.cuda.set_allocator``)
    every count stays 0.

    Attributes:
        call_history: The list of ``(name, used bytes, acquired bytes,
            depth)``. Only names are kept, so the hook holds no reference to
            the graph.

    Raises:
        RuntimeError: CuPy or a GPU is missing (on creation).

    .. admonition:: Example

        >>> from catena.function_hooks import CupyMemoryProfileHook
        >>> hook = CupyMemoryProfileHook()  # doctest: +SKIP
        >>> with hook:  # doctest: +SKIP
        ...     trainer.run()
        >>> hook.print_report()  # doctest: +SKIP
                   FunctionName  UsedBytes  AcquiredBytes  Occurrence
                 LinearFunction     5.16GB       179.98MB        3900
                           ReLU     0.99GB       458.97MB        2600
            SoftmaxCrossEntropy     0.01GB         5.08MB        1300
    """

    name = 'CupyMemoryProfileHook'
    table = dict(_FACTORS)

    def __init__(self) -> None:
        self.call_history: list[tuple[str, int, int, int]] = []
        self._counter = _memory_counter(f'catena.CupyMemoryProfileHook-{id(self):x}')
        self._registrations = 0
        self._running: list[tuple[int, int]] = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function: Any = None) -> None:
        # The same hook may be registered globally and on several nodes; the
        # CuPy memory hook is installed once, while any registration lasts.
        if self._registrations == 0:
            _start_counting(self._counter)
        self._registrations += 1

    def deleted(self, function: Any = None) -> None:
        if self._registrations == 0:
            return
        self._registrations -= 1
        if self._registrations == 0:
            _stop_counting(self._counter)
            # Calls still open here raised in forward or backward.
            self._running.clear()

    def _start(self) -> None:
        self._running.append(_read_counter(self._counter))

    def _stop(self, function: Any) -> None:
        if not self._running:
            return
        start_used, start_acquired = self._running.pop()
        end_used, end_acquired = _read_counter(self._counter)
        used, acquired = end_used - start_used, end_acquired - start_acquired
        depth = len(self._running)
        self.call_history.append((_impl_name(function), used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start()

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._start()

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._stop(function)

    def total_used_bytes(self) -> int:
        """Returns the bytes that the outermost calls took from CuPy's memory pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Returns the bytes that CuPy's pool acquired from the GPU in the outermost calls."""
        return self._total_acquired_bytes

    def summary(self) -> dict[str, dict[str, int]]:
        """Returns the totals of each function, in the order of their first call.

        Returns:
            dict: ``{name: {'used_bytes': ..., 'acquired_bytes': ...,
            'occurrence': ...}}``. Nested calls count in their own rows too.
        """
        summary: dict[str, dict[str, int]] = {}
        for name, used, acquired, _ in self.call_history:
            record = summary.setdefault(
                name, {'used_bytes': 0, 'acquired_bytes': 0, 'occurrence': 0})
            record['used_bytes'] += used
            record['acquired_bytes'] += acquired
            record['occurrence'] += 1
        return summary

    def print_report(self, unit: str = 'auto', file: TextIO | None = None) -> None:
        """Prints a table of the bytes used and acquired, and the calls, of each function.

        Args:
            unit: One of ``'B'``, ``'KB'``, ``'MB'``, ``'GB'``, ``'TB'``,
                ``'PB'``, ``'EB'``, ``'ZB'`` (powers of 1024); ``'auto'`` to
                show each column in the largest unit in which its largest
                value is at least 1; or ``'auto_foreach'`` to choose the unit
                of each value on its own.
            file: A writable text stream (default: the current standard
                output).

        Raises:
            ValueError: ``unit`` is none of these.
        """
        if unit not in _FACTORS and unit not in ('auto', 'auto_foreach'):
            raise ValueError(f"unit must be 'auto', 'auto_foreach' or one of "
                             f"{', '.join(BYTE_UNITS)}; got {unit!r}")
        file = sys.stdout if file is None else file
        summary = self.summary()
        columns = ('used_bytes', 'acquired_bytes')
        fixed: dict[str, tuple[int, str]] = {}
        if unit == 'auto':
            for column in columns:
                largest = max((record[column] for record in summary.values()), default=0)
                fixed[column] = choose_unit(largest)
        elif unit != 'auto_foreach':
            fixed = dict.fromkeys(columns, (_FACTORS[unit], unit))
        rows = [('FunctionName', 'UsedBytes', 'AcquiredBytes', 'Occurrence')]
        for name, record in summary.items():
            cells = []
            for column in columns:
                factor, shown = fixed.get(column) or choose_unit(record[column])
                cells.append(f'{record[column] / factor:3.2f}{shown}')
            rows.append((name, cells[0], cells[1], str(record['occurrence'])))
        widths = [max(len(row[index]) for row in rows) for index in range(4)]
        for row in rows:
            file.write('  '.join(cell.rjust(width) for cell, width in zip(row, widths)) + '\n')
        flush = getattr(file, 'flush', None)
        if flush is not None:
            flush()


class CUDAProfileHook(function_hook.FunctionHook):
    """Marks each function's forward and backward as an NVTX range.

    NVIDIA Nsight Systems (``nsys profile --trace=cuda,nvtx python train.py``)
    then shows ranges named ``<label>.forward`` and ``<label>.backward``
    around the GPU work of each function. Ranges left open by a function
    that raised are closed when the hook is removed.

    Raises:
        RuntimeError: CuPy, a GPU or NVTX is missing (on creation).

    .. admonition:: Example

        >>> from catena.function_hooks import CUDAProfileHook
        >>> with CUDAProfileHook():  # doctest: +SKIP
        ...     loss = model(x, t)
        ...     loss.backward()
    """

    name = 'CUDAProfileHook'

    def __init__(self) -> None:
        _check_nvtx()
        self._open = 0

    def _push(self, message: str) -> None:
        _range_push(message)
        self._open += 1

    def _pop(self) -> None:
        if self._open:
            _range_pop()
            self._open -= 1

    def deleted(self, function: Any = None) -> None:
        while self._open:
            self._pop()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._push(f'{function.label}.forward')

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._pop()

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._push(f'{function.label}.backward')

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._pop()


__all__ = ['BYTE_UNITS', 'CUDAProfileHook', 'CupyMemoryProfileHook', 'choose_unit']
