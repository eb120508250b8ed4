"""Batch conversion: concatenating examples into arrays and sending them to a device."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.backends._device import Device


class Converter:
    """Base class of converters.

    A converter turns a mini-batch (a list of examples) into arrays on a
    device: ``converter(batch, device)``, where ``device`` is a
    :class:`~catena.backend.Device` or None (leave the arrays where they are).
    """

    def __call__(self, batch: Any, device: Any = None) -> Any:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__')


class _ArbitraryCallableConverter(Converter):
    """Wraps a callable with any signature as a :class:`Converter`."""

    def __init__(self, base_callable: Callable[..., Any]) -> None:
        if not callable(base_callable):
            raise TypeError(f'a converter must be callable, got {type(base_callable).__name__}')
        self.base_callable = base_callable
        functools.update_wrapper(self, base_callable)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.base_callable(*args, **kwargs)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # A converter defined with @converter() at module level replaces its
        # function there: pickle it by that name, as pickle does functions.
        module = sys.modules.get(getattr(self, '__module__', None) or '')
        name = getattr(self, '__qualname__', '')
        target: Any = module
        for part in name.split('.'):
            target = getattr(target, part, None)
        if target is self:
            return name
        return super().__reduce_ex__(protocol)


def converter() -> Callable[[Callable[..., Any]], Converter]:
    """Decorator that makes a function ``f(batch, device, ...)`` a :class:`Converter`.

    Returns:
        A decorator; the decorated function becomes a Converter instance that
        calls the function with the same arguments.
    """

    def wrap(func: Callable[..., Any]) -> Converter:
        return _ArbitraryCallableConverter(func)

    return wrap


def _call_converter(conv: Callable[..., Any], batch: Any, device: Any) -> Any:
    """Calls ``conv`` the way updaters do.

    A Converter gets a Device (or None); an old-style converter (a plain
    function) gets Chainer's integer ids for the CPU (-1) and for a GPU (its
    index), and any other device as it is.
    """
    if isinstance(conv, Converter):
        if device is not None and not isinstance(device, Device):
            device = backend.get_device(device)
        return conv(batch, device)
    if isinstance(device, Device):
        device_id = getattr(device, 'device_id', None)
        if getattr(device, 'xp', None) is numpy:
            device = -1
        elif isinstance(device_id, int):
            device = device_id
    return conv(batch, device)


def to_device(device: Any, x: Any) -> Any:
    """Sends an array (or nested tuple/list/dict of arrays) to ``device``.

    Args:
        device: None (return ``x`` as it is), a :class:`~catena.backend.Device`,
            a spec string such as ``'@numpy'`` or ``'@cupy:0'``, or a
            Chainer-style integer (negative for the CPU, ``n >= 0`` for GPU ``n``).
        x: The array or structure of arrays.

    Returns:
        ``x`` on ``device``.
    """
    if device is None:
        return x
    return backend.get_device(device).send(x)


def _concat_arrays(arrays: Any, padding: Any) -> Any:
    if not isinstance(arrays[0], backend.get_array_types()):
        if padding is None:
            return numpy.asarray(arrays)
        arrays = [numpy.asarray(a) for a in arrays]
    if padding is not None:
        return _concat_arrays_with_padding(arrays, padding)
    device = backend.get_device_from_array(arrays[0])
    xp = device.xp
    with backend.using_device(device):
        return xp.stack([xp.asarray(a) for a in arrays])


def _concat_arrays_with_padding(arrays: Any, padding: Any) -> Any:
    first = arrays[0]
    ndim = first.ndim
    for i, a in enumerate(arrays):
        if a.ndim != ndim:
            raise ValueError(
                f'concat_examples: example {i} has {a.ndim} dimensions, example 0 has {ndim}; '
                'padding needs arrays of the same rank')
    shape = numpy.max(numpy.array([a.shape for a in arrays], dtype=numpy.int64), axis=0)
    device = backend.get_device_from_array(first)
    xp = device.xp
    with backend.using_device(device):
        result = xp.full((len(arrays),) + tuple(int(s) for s in shape), padding,
                         dtype=first.dtype)
        for i, a in enumerate(arrays):
            result[(i,) + tuple(slice(s) for s in a.shape)] = a
    return result


@converter()
def concat_examples(batch: Any, device: Any = None, padding: Any = None) -> Any:
    """Concatenates a list of examples into arrays, optionally sending them to a device.

    Each example is an array, a tuple of arrays or a dict of arrays; the
    result has the same structure with the examples stacked along a new
    first axis. Python scalars and lists are turned into NumPy arrays first.

    Args:
        batch: A non-empty list of examples.
        device: Where to send the arrays (anything :func:`to_device` accepts);
            None keeps them on the device of the examples.
        padding: None to require equal shapes; otherwise the value that fills
            the gaps when examples have different shapes (each array is padded
            to the largest shape). For tuple or dict examples it may be a
            tuple or dict giving one value per component.

    Returns:
        An array, a tuple of arrays or a dict of arrays.
    """
    return _concat_examples(batch, device, padding)


def _concat_examples(batch: Any, device: Any, padding: Any) -> Any:
    if len(batch) == 0:
        raise ValueError('concat_examples: the batch is empty')
    first = batch[0]
    if isinstance(first, tuple):
        n = len(first)
        paddings = padding if isinstance(padding, tuple) else (padding,) * n
        if len(paddings) != n:
            raise ValueError(f'concat_examples: padding has {len(paddings)} entries, '
                             f'the examples have {n} components')
        return tuple(to_device(device, _concat_arrays([ex[i] for ex in batch], paddings[i]))
                     for i in range(n))
    if isinstance(first, dict):
        pads = padding if isinstance(padding, dict) else {key: padding for key in first}
        return {key: to_device(device, _concat_arrays([ex[key] for ex in batch], pads[key]))
                for key in first}
    return to_device(device, _concat_arrays(batch, padding))


class ConcatWithAsyncTransfer(Converter):
    """Converter with the interface of Chainer's asynchronous-transfer converter.

    It concatenates like :func:`concat_examples` and sends the arrays to
    the device. catena performs the transfer synchronously through the
    device's ``send`` (no pinned-memory double buffering); the results are
    the same as Chainer's. As in Chainer, every call must use the device of
    the first call.

    Args:
        stream: Accepted for compatibility; unused.
        compute_stream: Accepted for compatibility; unused.
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self._stream = stream
        self.compute_stream = compute_stream
        self._device: Any = None
        self._called = False

    def __call__(self, batch: Any, device: Any = None, padding: Any = None) -> Any:
        if len(batch) == 0:
            raise ValueError('ConcatWithAsyncTransfer: the batch is empty')
        resolved = None if device is None else backend.get_device(device)
        if not self._called:
            self._device = resolved
            self._called = True
        elif resolved != self._device:
            raise ValueError(f'ConcatWithAsyncTransfer: device changed from {self._device} '
                             f'to {resolved}; use one converter per device')
        return _concat_examples(batch, resolved, padding)


__all__ = ['ConcatWithAsyncTransfer', 'Converter', 'concat_examples', 'converter', 'to_device']
