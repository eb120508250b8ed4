"""``pad``: pad an array at the edges of its axes."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.get_item import get_item
from catena.utils import type_check
from catena.variable import Variable

# Modes whose every output element is a copy of one input element (with the
# default reflect_type 'even'): their gradient adds up the copies.
_COPYING_MODES = ('edge', 'reflect', 'symmetric', 'wrap')


def _widths(pad_width: Any, ndim: int) -> numpy.ndarray:
    """``pad_width`` as an ``(ndim, 2)`` array of (before, after) counts."""
    try:
        widths = numpy.asarray(pad_width)
        if widths.dtype.kind not in 'iu':
            raise TypeError
        widths = numpy.broadcast_to(widths, (ndim, 2))
    except (TypeError, ValueError):
        raise ValueError(f'pad_width must be an int, a (before, after) pair or one such '
                         f'pair per axis of the {ndim}-dimensional input; '
                         f'got {pad_width!r}') from None
    if (widths < 0).any():
        raise ValueError(f'pad_width must not be negative; got {pad_width!r}')
    return widths


def _pad_arg(widths: numpy.ndarray) -> Any:
    """The widths for ``xp.pad``, which takes no empty list for a 0-d array."""
    return widths if len(widths) else 0


class Pad(FunctionNode):
    """Pads an array with :func:`numpy.pad` (or the device's ``pad``)."""

    def __init__(self, pad_width: Any, mode: Any, **keywords: Any) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._widths = _widths(self.pad_width, x.ndim)
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return xp.pad(x, _pad_arg(self._widths), mode=self.mode, **self.keywords),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        if self.mode == 'constant':
            return get_item(gy, tuple(slice(int(before), int(before) + dim)
                                      for (before, _), dim in zip(self._widths,
                                                                  self._in_shape))),
        if self.mode in _COPYING_MODES and self.keywords.get('reflect_type', 'even') == 'even':
            return PadGrad(self).apply(grad_outputs)
        raise NotImplementedError(
            f'pad supports backprop for mode "constant", "edge", "reflect", "symmetric" '
            f'and "wrap" (reflect_type "even"); got mode {self.mode!r} with keywords '
            f'{self.keywords!r}')


class PadGrad(FunctionNode):
    """The gradient of a copying pad mode: sums the gradients of all copies of an element."""

    def __init__(self, pad: Pad) -> None:
        self.pad_width = pad.pad_width
        self.mode = pad.mode
        self.keywords = pad.keywords
        self._widths = pad._widths
        self._in_shape = pad._in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        size = 1
        for dim in self._in_shape:
            size *= dim
        # Pad the element indexes the same way to learn where each copy came from.
        source = xp.pad(xp.arange(size).reshape(self._in_shape), _pad_arg(self._widths),
                        mode=self.mode, **self.keywords)
        gx = xp.bincount(source.ravel(), weights=gy.ravel(), minlength=size)
        return gx.astype(gy.dtype, copy=False).reshape(self._in_shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Pad(self.pad_width, self.mode, **self.keywords).apply(grad_outputs)


def pad(x: Any, pad_width: Any, mode: Any, **keywords: Any) -> Variable:
    """Pads ``x`` at the edges of its axes, as :func:`numpy.pad`.

    Args:
        x: A Variable or array of floating point type.
        pad_width: The number of elements to add before and after each axis:
            an int (all axes, both sides), a ``(before, after)`` pair (all
            axes) or one pair per axis.
        mode: How to fill the new elements; any mode of :func:`numpy.pad`.
            ``'constant'`` fills them with ``constant_values`` (default 0).
            Backprop supports ``'constant'``, ``'edge'``, ``'reflect'``,
            ``'symmetric'`` and ``'wrap'``.
        keywords: Further arguments of :func:`numpy.pad`, such as
            ``constant_values``.

    Returns:
        Variable: The padded variable.

    .. admonition:: Example

        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.pad(x, 1, 'constant').array
        array([[0., 0., 0., 0.],
               [0., 1., 2., 0.],
               [0., 3., 4., 0.],
               [0., 0., 0., 0.]], dtype=float32)
        >>> F.pad(x, ((0, 0), (1, 0)), 'constant', constant_values=-1).array
        array([[-1.,  1.,  2.],
               [-1.,  3.,  4.]], dtype=float32)
    """
    return Pad(pad_width, mode, **keywords).apply((x,))[0]
