"""``clipped_relu``: the rectified linear unit clipped at a ceiling ``z``."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation import _piecewise, _scalar
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_ceiling(z: Any) -> float:
    z = _scalar.real(z, 'z', 'clipped_relu')
    if z < 0:
        raise ValueError(f'clipped_relu: z must be non-negative; got {z!r}')
    return z


class ClippedReLU(FunctionNode):
    """Clipped rectifier, :math:`y = \\min(\\max(0, x), z)`."""

    def __init__(self, z: float) -> None:
        self.cap = _check_ceiling(z)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        cast = x.dtype.type
        return force_array(xp.clip(x, cast(0), cast(self.cap))),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x = self.get_retained_inputs()[0].array
        mask = _piecewise.indicator((x > 0) & (x < x.dtype.type(self.cap)), x.dtype)
        return ClippedReLUGrad2(mask).apply(grad_outputs)


class ClippedReLUGrad2(_piecewise.PiecewiseLinearGrad):
    """The gradient of clipped_relu, ``gx = gy * mask`` with ``mask = (0 < x < z)``."""


def clipped_relu(x: Any, z: float = 20.0) -> Variable:
    """Clipped rectifier unit, :math:`y = \\min(\\max(0, x), z)`, element-wise.

    Args:
        x: A Variable or array of floating point type.
        z: The clipping value (the ceiling), a non-negative real number.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 0.5, 3.0, 25.0], dtype=np.float32)
        >>> F.clipped_relu(x, z=2.0).array
        array([0. , 0.5, 2. , 2. ], dtype=float32)
    """
    return ClippedReLU(z).apply((x,))[0]
