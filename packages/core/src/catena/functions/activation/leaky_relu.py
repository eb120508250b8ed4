"""``leaky_relu``: the rectified linear unit with a slope for negative inputs."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise, _scalar
from catena.utils import force_array, type_check
from catena.variable import Variable


class LeakyReLU(FunctionNode):
    """Leaky rectifier: ``x`` for ``x >= 0``, else ``slope * x``."""

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = _scalar.real(slope, 'slope', 'leaky_relu')

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        y = force_array(xp.multiply(x, x.dtype.type(self.slope)))
        # x >= 0 gives x and x < 0 gives slope * x: the larger of the two for a
        # slope up to 1, the smaller for a steeper one.
        if self.slope <= 1:
            xp.maximum(x, y, out=y)
        else:
            xp.minimum(x, y, out=y)
        self.retain_inputs((0,))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        # 1 where x >= 0, slope elsewhere
        coefficient = _piecewise.indicator(x < 0, x.dtype)
        coefficient *= x.dtype.type(self.slope - 1)
        coefficient += x.dtype.type(1)
        return _LeakyReLUGrad(coefficient).apply(grad_outputs)


class _LeakyReLUGrad(_piecewise.PiecewiseLinearGrad):
    """The gradient of leaky_relu: ``gx = gy`` where ``x >= 0``, else ``gy * slope``."""


def leaky_relu(x: Any, slope: float = 0.2) -> Variable:
    """Leaky rectified linear unit, element-wise.

    .. math::

        y = \\begin{cases} x & (x \\ge 0) \\\\ a x & (x < 0) \\end{cases}

    Args:
        x: A Variable or array of floating point type.
        slope: The slope :math:`a` for negative inputs.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([[-1, 0], [2, -3], [-2, 1]], dtype=np.float32)
        >>> F.leaky_relu(x, slope=0.2).array
        array([[-0.2,  0. ],
               [ 2. , -0.6],
               [-0.4,  1. ]], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]
