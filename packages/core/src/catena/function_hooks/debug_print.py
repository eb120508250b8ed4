"""``PrintHook``: prints what every function receives, forward and backward."""

from __future__ import annotations

import sys
import warnings
from typing import Any, TextIO

import numpy

from catena import function_hook

_STATISTICS = 'mean={:.8f}, std={:.8f}'


def _statistics(xp: Any, array: Any) -> str:
    if array.size == 0:
        return 'None'
    values = array.astype(numpy.float64) if array.dtype.kind in 'fc' and \
        array.dtype.itemsize < 4 else array
    return _STATISTICS.format(float(xp.mean(values)), float(xp.std(values)))


def _device_text(array: Any) -> str:
    # Chainer printed the array's own device ('<CUDA Device 0>' for CuPy)
    # and 'CPU' for host arrays (NumPy 2's 'cpu' device attribute included).
    if isinstance(array, numpy.ndarray):
        return 'CPU'
    native = getattr(array, 'device', None)
    if native is not None:
        return str(native)
    from catena import backend

    return str(backend.get_device_from_array(array))


def _describe(array: Any, grad: Any = None) -> str:
    """Chainer's description of a variable holding ``array`` and ``grad``.

    ``array`` None describes an empty variable: every field is None.
    """
    from catena import backend

    lines = [f'<variable at {id(array):#x}>']
    if array is None:
        fields = ['None'] * 5
    else:
        xp = backend.get_array_module(array)
        fields = [_device_text(array), str(type(array)), str(array.shape), str(array.dtype),
                  _statistics(xp, array)]
    if grad is None:
        grad_text = 'None'
    else:
        xp = backend.get_array_module(grad)
        grad_text = '0' if not bool(xp.any(grad)) else _statistics(xp, grad)
    names = ('device', 'backend', 'shape', 'dtype', 'statistics')
    lines += [f'- {name}: {value}' for name, value in zip(names, fields)]
    lines.append(f'- grad: {grad_text}')
    return '\n'.join(lines)


def _describe_gradient(grad: Any) -> str:
    """An output gradient as Chainer showed it: a zero variable whose grad it is."""
    if grad is None:
        return _describe(None)
    from catena import backend

    xp = backend.get_array_module(grad)
    return _describe(xp.zeros_like(grad), grad)


class PrintHook(function_hook.FunctionHook):
    """Prints each function's label and a description of its arrays.

    Before a forward pass it prints the function's label and, for every
    input, a description in the format of Chainer's
    ``Variable.debug_print``::

        <variable at 0x7f...>
        - device: CPU
        - backend: <class 'numpy.ndarray'>
        - shape: (3, 5)
        - dtype: float32
        - statistics: mean=0.00123457, std=0.05678901
        - grad: None

    Before a backward pass it prints the retained inputs (``(removed)`` for
    those not retained) and, under ``output gradient``, each output gradient
    as Chainer did: a variable of zeros whose ``grad`` line shows the
    gradient's statistics (``0`` when it is all zeros; every field None when
    the gradient is None).

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
            # Inputs that the function did not retain are gone in backward.
            self._print('(removed)' if array is None else _describe(array))
        if out_grad is not None:
            self._print('output gradient')
            for array in out_grad:
                self._print(_describe_gradient(array))
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
