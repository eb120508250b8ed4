"""Trigonometric functions and their inverses, element-wise.

``sin``, ``cos``, ``tan``, ``arcsin``, ``arccos``, ``arctan`` and ``arctan2``.
"""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sqrt import sqrt
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_float(in_types: Any) -> None:
    type_check._argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Sin(FunctionNode):

    @property
    def label(self) -> str:
        return 'sin'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).sin(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cos(x),


class Cos(FunctionNode):

    @property
    def label(self) -> str:
        return 'cos'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).cos(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] * sin(x)),


class Tan(FunctionNode):

    @property
    def label(self) -> str:
        return 'tan'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).tan(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        # d tan(x) / dx = 1 / cos(x)^2 = 1 + tan(x)^2
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * y + 1),


class Arcsin(FunctionNode):

    @property
    def label(self) -> str:
        return 'arcsin'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).arcsin(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / sqrt(1 - x * x),


class Arccos(FunctionNode):

    @property
    def label(self) -> str:
        return 'arccos'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).arccos(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] / sqrt(1 - x * x)),


class Arctan(FunctionNode):

    @property
    def label(self) -> str:
        return 'arctan'

    def check_type_forward(self, in_types: Any) -> None:
        _check_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return force_array(backend.get_array_module(x).arctan(x)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x * x + 1),


class Arctan2(FunctionNode):
    """``arctan2(x1, x2)``: the angle of the point ``(x2, x1)``, with broadcasting."""

    @property
    def label(self) -> str:
        return 'arctan2'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x1', 'x2'))
        x1_type, x2_type = in_types
        type_check.expect(x1_type.dtype.kind == 'f', x2_type.dtype == x1_type.dtype)
        type_check.expect_broadcast_shapes(x1_type.shape, x2_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return force_array(backend.get_array_module(x1).arctan2(x1, x2)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] / (x1 * x1 + x2 * x2)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(g * x2, x1.shape))
            else:
                ret.append(sum_to(-(g * x1), x2.shape))
        return tuple(ret)


def sin(x: Any) -> Variable:
    """Elementwise sine, :math:`y_i = \\sin x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The sine of ``x``.

    .. admonition:: Example

        >>> F.sin(np.array([0.0, np.pi / 2], dtype=np.float32)).array
        array([0., 1.], dtype=float32)
    """
    return Sin().apply((x,))[0]


def cos(x: Any) -> Variable:
    """Elementwise cosine, :math:`y_i = \\cos x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The cosine of ``x``.

    .. admonition:: Example

        >>> F.cos(np.array([0.0, np.pi], dtype=np.float32)).array
        array([ 1., -1.], dtype=float32)
    """
    return Cos().apply((x,))[0]


def tan(x: Any) -> Variable:
    """Elementwise tangent, :math:`y_i = \\tan x_i`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The tangent of ``x``.

    .. admonition:: Example

        >>> F.tan(np.array([0.0, np.pi / 4], dtype=np.float64)).array
        array([0., 1.])
    """
    return Tan().apply((x,))[0]


def arcsin(x: Any) -> Variable:
    """Elementwise inverse sine, :math:`y_i = \\arcsin x_i`, in :math:`[-\\pi/2, \\pi/2]`.

    Args:
        x: A Variable or array of floating point type, with values in
            :math:`[-1, 1]` (NaN outside).

    Returns:
        Variable: The arcsine of ``x``.

    .. admonition:: Example

        >>> F.arcsin(np.array([0.0, 1.0], dtype=np.float64)).array
        array([0.        , 1.57079633])
    """
    return Arcsin().apply((x,))[0]


def arccos(x: Any) -> Variable:
    """Elementwise inverse cosine, :math:`y_i = \\arccos x_i`, in :math:`[0, \\pi]`.

    Args:
        x: A Variable or array of floating point type, with values in
            :math:`[-1, 1]` (NaN outside).

    Returns:
        Variable: The arccosine of ``x``.

    .. admonition:: Example

        >>> F.arccos(np.array([1.0, 0.0], dtype=np.float64)).array
        array([0.        , 1.57079633])
    """
    return Arccos().apply((x,))[0]


def arctan(x: Any) -> Variable:
    """Elementwise inverse tangent, :math:`y_i = \\arctan x_i`, in :math:`(-\\pi/2, \\pi/2)`.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: The arctangent of ``x``.

    .. admonition:: Example

        >>> F.arctan(np.array([0.0, 1.0], dtype=np.float64)).array
        array([0.        , 0.78539816])
    """
    return Arctan().apply((x,))[0]


def arctan2(x1: Any, x2: Any) -> Variable:
    """Elementwise arctangent of ``x1 / x2`` that takes the quadrant into account.

    :math:`y_i = \\arctan(x1_i / x2_i)`, with the result in :math:`[-\\pi, \\pi]`
    chosen by the signs of both arguments, as :func:`numpy.arctan2`. The two
    arguments are broadcast together.

    Args:
        x1: The y-coordinates: a Variable or array of floating point type.
        x2: The x-coordinates: a Variable or array of the same dtype as ``x1``.

    Returns:
        Variable: The angles, in radians.

    .. admonition:: Example

        >>> F.arctan2(np.array([1.0, -1.0]), np.array([-1.0, -1.0])).array
        array([ 2.35619449, -2.35619449])
    """
    return Arctan2().apply((x1, x2))[0]
