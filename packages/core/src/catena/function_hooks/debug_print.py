"""``PrintHook``: prints what every function receives, forward and backward."""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO

from catena import function_hook


def _describe(array: Any) -> str:
    if array is None:
        return '(removed)'
    from catena.variable import Variable

    return Variable(array, requires_grad=False).debug_print()


class PrintHook(function_hook.FunctionHook):
    """Prints each function's label and a description of its arrays.

    Before a forward pass it prints the function's label and, for every
    input, the description of :meth:`catena.Variable.debug_print` (summary,
    device, shape, dtype and statistics). Before a backward pass it prints
    the retained inputs (``(removed)`` for those not retained) and the
    gradients of the outputs (``(None)`` for a zero gradient).

    Args:
        sep: Deprecated and ignored (kept for compatibility).
        end: The string written after each printed item.
        file: A writable text stream (default: the current standard output,
            looked up at each print).
        flush: Flush ``file`` after each function.

    The label line is ``function<TAB><label>``, then ``input data`` and one
    description per input.

    .. admonition:: Example

        >>> from catena.function_hooks import PrintHook
        >>> with PrintHook():  # doctest: +SKIP
        ...     y = F.tanh(x)
    """

    name = 'PrintHook'

    def __init__(self, sep: str | None = None, end: str = '\n', file: TextIO | None = None,
                 flush: bool = True) -> None:
        if sep is not None:
            warnings.warn('the sep argument of PrintHook is deprecated and ignored; use end',
                          DeprecationWarning, stacklevel=2)
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, text: str) -> None:
        file = sys.stdout if self.file is None else self.file
        file.write(text + self.end)

    def _process(self, function: Any, in_data: tuple[Any, ...],
                 out_grad: tuple[Any, ...] | None = None) -> None:
        self._print(f'function\t{function.label}')
        self._print('input data')
        for array in in_data:
            self._print(_describe(array))
        if out_grad:
            self._print('output gradient')
            for array in out_grad:
                self._print('(None)' if array is None else _describe(array))
        if self.flush:
            file = sys.stdout if self.file is None else self.file
            flush = getattr(file, 'flush', None)
            if flush is not None:
                flush()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._process(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        self._process(function, in_data, out_grad)


__all__ = ['PrintHook']
