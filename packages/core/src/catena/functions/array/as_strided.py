"""``as_strided``: a view with arbitrary shape, strides and offset."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, bool)


def _int_tuple(value: Any, name: str) -> tuple[int, ...]:
    if _is_int(value):
        return (int(value),)
    if isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f'{name} must be a tuple of ints; got {value!r}')


def _bounds(shape: tuple[int, ...], strides: tuple[int, ...], storage_offset: int
            ) -> tuple[int, int] | None:
    """The smallest and largest storage index a view reads (None when it is empty)."""
    if not all(shape):
        return None
    reach = [(dim - 1) * stride for dim, stride in zip(shape, strides)]
    low = storage_offset + sum(r for r in reach if r < 0)
    high = storage_offset + sum(r for r in reach if r > 0)
    if low < 0:
        raise ValueError(
            f'as_strided with shape {shape}, strides {strides} and storage_offset '
            f'{storage_offset} reads before the first element (index {low})')
    return low, high


def _stride_array(x: Any, shape: tuple[int, ...], strides: tuple[int, ...],
                  storage_offset: int) -> Any:
    """The array behind :func:`as_strided`: a view of ``x``'s elements in C order.

    ``strides`` and ``storage_offset`` count elements. Raises ValueError when
    the view would read outside ``x``.
    """
    shape, strides = tuple(shape), tuple(strides)
    bounds = _bounds(shape, strides, storage_offset)
    if bounds is not None and bounds[1] >= x.size:
        raise ValueError(
            f'as_strided with shape {shape}, strides {strides} and storage_offset '
            f'{storage_offset} reads element {bounds[1]} of an array of {x.size}')
    xp = backend.get_array_module(x)
    storage = xp.ascontiguousarray(x).ravel()
    itemsize = x.dtype.itemsize
    byte_strides = tuple(stride * itemsize for stride in strides)
    # Negative strides may step back from the origin into the storage, never before it.
    origin = storage[storage_offset:] if storage.size else storage
    return xp.lib.stride_tricks.as_strided(origin, shape, byte_strides)


class AsStrided(FunctionNode):
    """Reads ``x`` (in C order) as a view of ``shape`` and ``strides`` (in elements)."""

    def __init__(self, shape: Any, strides: Any, storage_offset: Any = None) -> None:
        self.shape = _int_tuple(shape, 'shape')
        self.strides = _int_tuple(strides, 'strides')
        if storage_offset is None:
            storage_offset = 0
        if not _is_int(storage_offset) or storage_offset < 0:
            raise ValueError(f'storage_offset must be a non-negative int or None; '
                             f'got {storage_offset!r}')
        self.storage_offset = int(storage_offset)
        if len(self.shape) != len(self.strides):
            raise ValueError(f'shape and strides must have the same length; got shape '
                             f'{self.shape} and strides {self.strides}')
        if any(dim < 0 for dim in self.shape):
            raise ValueError(f'shape must not contain negative sizes; got {self.shape}')
        # The smallest and largest element index the view reads (None: it is empty).
        self._bounds = _bounds(self.shape, self.strides, self.storage_offset)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        if self._bounds is not None:
            # The view reads element `high` of x (in C order), so x needs more elements.
            type_check.expect(in_types[0].size > self._bounds[1])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return _stride_array(x, self.shape, self.strides, self.storage_offset),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AsStridedGrad(self._in_shape, self.shape, self.strides,
                             self.storage_offset).apply(grad_outputs)


class AsStridedGrad(FunctionNode):
    """Adds a gradient of the strided view back to the elements it read.

    Where the view reads an element several times (overlapping strides), the
    gradients of all those places are summed.
    """

    def __init__(self, in_shape: tuple[int, ...], shape: tuple[int, ...],
                 strides: tuple[int, ...], storage_offset: int) -> None:
        self.in_shape = in_shape
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        if gy.dtype.kind != 'f':
            raise TypeError(f'as_strided supports backprop of floating point arrays only; '
                            f'the gradient has dtype {gy.dtype}')
        xp = backend.get_array_module(gy)
        size = 1
        for dim in self.in_shape:
            size *= dim
        index = xp.full(self.shape, self.storage_offset, dtype=numpy.intp)
        for axis, (dim, stride) in enumerate(zip(self.shape, self.strides)):
            steps = xp.arange(dim, dtype=numpy.intp) * stride
            index += steps.reshape((dim,) + (1,) * (len(self.shape) - axis - 1))
        gx = xp.bincount(index.ravel(), weights=gy.ravel(), minlength=size)
        return gx.astype(gy.dtype, copy=False).reshape(self.in_shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return AsStrided(self.shape, self.strides, self.storage_offset).apply(grad_outputs)


def as_strided(x: Any, shape: Any, strides: Any, storage_offset: int | None = None
               ) -> Variable:
    """Makes a view of ``x`` with the given shape, strides and offset.

    The elements of ``x`` are taken in C order as a one-dimensional storage
    (``x``'s own strides are ignored); the output element at index
    ``(i_1, ..., i_N)`` is storage element
    ``storage_offset + i_1 * strides[0] + ... + i_N * strides[N - 1]``.
    Unlike :func:`numpy.lib.stride_tricks.as_strided`, ``strides`` and
    ``storage_offset`` count elements, not bytes. Where the view reads an
    element several times, the gradients of those places are summed.

    Args:
        x: A Variable or array.
        shape: The shape of the output, a tuple of ints.
        strides: The strides of the output in elements, a tuple of ints.
        storage_offset: The index of the storage element at the output's
            origin (None: 0).

    Returns:
        Variable: The strided view.

    Raises:
        ValueError: If the view would read outside ``x``.

    .. admonition:: Example

        >>> x = catena.Variable(np.arange(4, dtype=np.float32))
        >>> y = F.as_strided(x, (3, 2), (1, 1), 0)
        >>> y.array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
        >>> y.grad = np.ones((3, 2), dtype=np.float32)
        >>> y.backward()
        >>> x.grad
        array([1., 2., 2., 1.], dtype=float32)
    """
    return AsStrided(shape, strides, storage_offset).apply((x,))[0]
