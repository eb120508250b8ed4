"""``TimerHook``: the elapsed time of every function, forward and backward."""

from __future__ import annotations

import time
from typing import Any, TextIO

from catena import _timing_report, function_hook


def _impl_name(function: Any) -> str:
    """The class name of the function (of the wrapped Function for an adapter)."""
    name = getattr(function, '_impl_name', None)
    return name if isinstance(name, str) else type(function).__name__


def _synchronizer(arrays: tuple[Any, ...]) -> Any:
    """Returns a callable that waits for the device of ``arrays``, or None.

    Timing an asynchronous device (a GPU) needs a barrier before reading the
    clock. A Device may offer ``synchronize()`` itself or through the native
    device object in its ``device`` attribute (as CuPy devices do); host
    devices offer neither and need none.
    """
    from catena import backend

    for array in arrays:
        if array is None:
            continue
        device = backend.get_device_from_array(array)
        sync = getattr(device, 'synchronize', None)
        if sync is None:
            sync = getattr(getattr(device, 'device', None), 'synchronize', None)
        return sync
    return None


class TimerHook(function_hook.FunctionHook):
    """Measures the time every function takes in forward and in backward.

    Each forward or backward call adds a ``(function name, seconds)`` pair to
    :attr:`call_history`. When one function runs inside another (the
    backward of a function applies other functions), both are recorded, but
    :meth:`total_time` counts only the outermost one.

    On an asynchronous device the hook synchronizes the device before reading
    the clock, so the times include the device's work.

    Attributes:
        call_history: The list of ``(function name, elapsed seconds)``. Only
            names are kept, so the hook holds no reference to the graph.

    .. admonition:: Example

        >>> from catena.function_hooks import TimerHook
        >>> x = catena.Variable(np.array(0.5, np.float32))
        >>> with TimerHook() as hook:
        ...     y = F.tanh(x)
        ...     y.backward()
        >>> hook.print_report()  # doctest: +SKIP
        FunctionName  ElapsedTime  Occurrence
                Tanh      0.05ms           1
    """

    name = 'TimerHook'
    table = dict(_timing_report.UNITS)

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running: list[tuple[float, Any]] = []
        self._total_time = 0.0

    def _start(self, arrays: tuple[Any, ...]) -> None:
        sync = _synchronizer(arrays)
        if sync is not None:
            sync()
        self._running.append((time.perf_counter(), sync))

    def _stop(self, function: Any) -> None:
        start, sync = self._running.pop()
        if sync is not None:
            sync()
        elapsed = time.perf_counter() - start
        self.call_history.append((_impl_name(function), elapsed))
        if not self._running:
            self._total_time += elapsed

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start(in_data)

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._start(tuple(in_data) + tuple(out_grad))

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        self._stop(function)

    def total_time(self) -> float:
        """Returns the total elapsed seconds of the outermost calls."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, Any]]:
        """Returns ``{function name: {'elapsed_time': seconds, 'occurrence': count}}``.

        The names appear in the order of their first call.
        """
        return _timing_report.summarize(self.call_history)

    def print_report(self, unit: str = 'auto', file: TextIO | None = None) -> None:
        """Prints a table of the time and the number of calls of each function.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``; ``'auto'`` for
                the largest unit in which the longest time is at least 1,
                used for every row; or ``'auto_foreach'`` to pick that unit
                for each row.
            file: A writable text stream (default: the current standard
                output).
        """
        _timing_report.print_report(self.summary(), 'FunctionName', unit, file)


__all__ = ['TimerHook']
