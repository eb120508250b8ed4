"""``crelu``: the concatenated rectified linear unit."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _along_axis, _piecewise
from catena.utils import type_check
from catena.variable import Variable


class CReLU(FunctionNode):
    """Concatenates ``relu(x)`` and ``relu(-x)`` along ``axis``."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        _along_axis.expect_axis_in_range(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        axis = self.axis % x.ndim
        n = x.shape[axis]
        shape = list(x.shape)
        shape[axis] = 2 * n
        y = xp.empty(shape, dtype=x.dtype)
        cast = x.dtype.type
        head = (slice(None),) * axis
        xp.clip(x, cast(0), cast('inf'), out=y[head + (slice(0, n),)])
        negative = y[head + (slice(n, None),)]
        xp.negative(x, out=negative)
        xp.clip(negative, cast(0), cast('inf'), out=negative)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        positive = _piecewise.indicator(x > 0, x.dtype)
        negative = _piecewise.indicator(x < 0, x.dtype)
        return CReLUGrad(self.axis % x.ndim, positive, negative).apply(grad_outputs)


class CReLUGrad(FunctionNode):
    """The gradient of crelu: ``gx = gy[:n] * (x > 0) - gy[n:] * (x < 0)`` along the axis.

    It is linear in ``gy``; its backward is :class:`CReLUGradTranspose`.
    """

    def __init__(self, axis: int, positive: Any, negative: Any) -> None:
        self.axis = axis
        self.positive = positive
        self.negative = negative

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        n = self.positive.shape[self.axis]
        head = (slice(None),) * self.axis
        gx = xp.multiply(gy[head + (slice(0, n),)], self.positive)
        gx -= xp.multiply(gy[head + (slice(n, None),)], self.negative)
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return CReLUGradTranspose(self.axis, self.positive, self.negative).apply(grad_outputs)


class CReLUGradTranspose(CReLUGrad):
    """The transpose of :class:`CReLUGrad`: concatenates ``g * (x > 0)`` and ``-g * (x < 0)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        g, = inputs
        xp = backend.get_array_module(g)
        n = self.positive.shape[self.axis]
        shape = list(g.shape)
        shape[self.axis] = 2 * n
        out = xp.empty(shape, dtype=g.dtype)
        head = (slice(None),) * self.axis
        xp.multiply(g, self.positive, out=out[head + (slice(0, n),)])
        negative = out[head + (slice(n, None),)]
        xp.multiply(g, self.negative, out=negative)
        xp.negative(negative, out=negative)
        return out,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return CReLUGrad(self.axis, self.positive, self.negative).apply(grad_outputs)


def crelu(x: Any, axis: int = 1) -> Variable:
    """Concatenated rectified linear unit: ``concat((relu(x), relu(-x)), axis)``.

    The output has twice the length of ``x`` along ``axis``: first the
    positive part of ``x``, then the positive part of ``-x``.

    Args:
        x: A Variable or array of floating point type.
        axis: The axis to concatenate along.

    Returns:
        Variable: An array whose length along ``axis`` is twice that of ``x``.

    .. admonition:: Example

        >>> x = np.array([[-1.0, 2.0], [3.0, -4.0]], dtype=np.float32)
        >>> F.crelu(x, axis=1).array
        array([[0., 2., 1., 0.],
               [3., 0., 0., 4.]], dtype=float32)
    """
    return CReLU(_along_axis.check_axis_argument(axis, 'crelu')).apply((x,))[0]
