"""``linear_interpolate``: the element-wise weighted mean ``p * x + (1 - p) * y``."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.variable import Variable


class LinearInterpolate(FunctionNode):
    """``p * x + (1 - p) * y`` for three arrays of the same shape and dtype."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('p', 'x', 'y'))
        p_type, x_type, y_type = in_types
        type_check.expect(
            p_type.dtype.kind == 'f',
            x_type.dtype == p_type.dtype,
            y_type.dtype == p_type.dtype,
            x_type.shape == p_type.shape,
            y_type.shape == p_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        out = force_array(p * x)
        rest = force_array(p.dtype.type(1) - p)
        rest *= y
        out += rest
        return out,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        p, x, y = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(g * (x - y))
            elif i == 1:
                ret.append(g * p)
            else:
                ret.append(g * (1 - p))
        return tuple(ret)


def linear_interpolate(p: Any, x: Any, y: Any) -> Variable:
    """Elementwise linear interpolation, :math:`f_i = p_i x_i + (1 - p_i) y_i`.

    Args:
        p: The weights of ``x``: a Variable or array of floating point type.
        x: A Variable or array of the shape and dtype of ``p``.
        y: A Variable or array of the shape and dtype of ``p``.

    Returns:
        Variable: The interpolated values.

    .. admonition:: Example

        >>> p = np.array([0.0, 0.25, 1.0], dtype=np.float32)
        >>> x = np.full(3, 4.0, dtype=np.float32)
        >>> y = np.zeros(3, dtype=np.float32)
        >>> F.linear_interpolate(p, x, y).array
        array([0., 1., 4.], dtype=float32)
    """
    return LinearInterpolate().apply((p, x, y))[0]
