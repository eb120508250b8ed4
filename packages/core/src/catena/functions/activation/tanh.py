"""``tanh``: the hyperbolic tangent, element-wise."""

from __future__ import annotations

from typing import Any

import numpy

from catena import _quick_types, backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class Tanh(FunctionNode):
    """Hyperbolic tangent."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    _accepts_types = staticmethod(_quick_types.one_float_array)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._output_indexes_to_retain = (0,)
        x = inputs[0]
        if x.__class__ is numpy.ndarray:
            y = numpy.tanh(x)
            return (y if y.__class__ is numpy.ndarray else force_array(y)),
        return force_array(backend.get_array_module(x).tanh(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))


class TanhGrad(FunctionNode):
    """The gradient of tanh: ``gx = gy * (1 - y * y)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = numpy if y.__class__ is numpy.ndarray else backend.get_array_module(y)
        gx = force_array(y * y)
        xp.subtract(y.dtype.type(1), gx, out=gx)
        gx *= gy
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * y * -2.0)
            else:
                ret.append(ggx * (1.0 - y * y))
        return tuple(ret)


def tanh(x: Any) -> Variable:
    """Elementwise hyperbolic tangent, :math:`y = \\tanh x`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The hyperbolic tangent of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 0.0, 1.0], dtype=np.float32)
        >>> F.tanh(x).array
        array([-0.7615942,  0.       ,  0.7615942], dtype=float32)
    """
    return Tanh().apply((x,))[0]
