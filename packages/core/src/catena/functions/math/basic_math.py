"""The arithmetic operators of :class:`~catena.Variable`.

``x + y``, ``x - y``, ``x * y``, ``x / y``, ``x ** y`` and ``x @ y`` broadcast
as NumPy does. A Python or NumPy scalar operand becomes a constant of the
variable's dtype; an array operand is converted to the variable's dtype and
takes part as a variable that does not require grad.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena import _engine, _quick_types, backend
from catena.function_node import FunctionNode, _new_output
from catena.functions.math.exponential import log
from catena.functions.math.matmul import (
    MatMul,
    matmul as matmul,  # re-exported for old importers; the home is math/matmul.py
)
from catena.functions.math.sum_to import sum_to
from catena.utils import force_array, type_check
from catena.variable import Variable


def _check_arithmetic(in_types: Any, names: tuple[str, ...] = ('lhs', 'rhs')) -> None:
    type_check._argname(in_types, names)
    lhs, rhs = in_types
    type_check.expect(lhs.dtype.kind == 'f', lhs.dtype == rhs.dtype)
    type_check.expect_broadcast_shapes(lhs.shape, rhs.shape)


def _check_unary(in_types: Any) -> None:
    type_check._argname(in_types, ('x',))
    type_check.expect(in_types[0].dtype.kind == 'f')


class Neg(FunctionNode):

    @property
    def label(self) -> str:
        return '__neg__'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return force_array(-inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return neg(grad_outputs[0]),


class Absolute(FunctionNode):

    @property
    def label(self) -> str:
        return '|_|'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(abs(inputs[0])),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * backend.get_array_module(x).sign(x.array),


class Add(FunctionNode):

    @property
    def label(self) -> str:
        return '_ + _'

    def check_type_forward(self, in_types: Any) -> None:
        # Any dtype, as in Chainer: integer gradients are summed with ``+`` too.
        type_check._argname(in_types, ('lhs', 'rhs'))
        lhs, rhs = in_types
        type_check.expect(lhs.dtype == rhs.dtype)
        type_check.expect_broadcast_shapes(lhs.shape, rhs.shape)

    _accepts_types = staticmethod(_quick_types.two_same_arrays)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y = inputs[0] + inputs[1]
        return (y if y.__class__ is numpy.ndarray else force_array(y)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        nodes: Any = self.inputs  # they know the inputs' shapes
        return tuple([_sum_to(gy, nodes[i].shape) for i in indexes])


class MultiAdd(FunctionNode):
    """The sum of any number of arrays, broadcast together."""

    def check_type_forward(self, in_types: Any) -> None:
        n = len(in_types)
        type_check._argname(in_types, tuple(f'x{i}' for i in range(n)))
        type_check.expect(in_types[0].dtype.kind == 'f')
        for i in range(1, n):
            type_check.expect(in_types[i].dtype == in_types[0].dtype)
        type_check.expect_broadcast_shapes(*[t.shape for t in in_types])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.shapes = [x.shape for x in inputs]
        if len(inputs) == 1:
            return inputs[0].copy(),
        shape = numpy.broadcast_shapes(*self.shapes)
        y = inputs[0] + inputs[1]
        for x in inputs[2:]:
            if y.shape == shape:
                y += x  # y is a fresh array of the final shape
            else:
                y = y + x
        return force_array(y),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        return tuple([sum_to(gy, self.shapes[i]) for i in indexes])


class AddConstant(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ + {_constant_label(self.value)}'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return force_array(inputs[0] + self.value),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return grad_outputs[0],


class Sub(FunctionNode):

    @property
    def label(self) -> str:
        return '_ - _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_arithmetic(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        self.shapes = (x0.shape, x1.shape)
        return force_array(x0 - x1),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        return tuple([sum_to(gy, self.shapes[0]) if i == 0 else -sum_to(gy, self.shapes[1])
                      for i in indexes])


class SubFromConstant(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_constant_label(self.value)} - _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return force_array(self.value - inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return neg(grad_outputs[0]),


class Mul(FunctionNode):

    @property
    def label(self) -> str:
        return '_ * _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_arithmetic(in_types)

    _accepts_types = staticmethod(_quick_types.two_same_float_arrays)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._input_indexes_to_retain = (0, 1)
        x0, x1 = inputs
        y = x0 * x1
        return (y if y.__class__ is numpy.ndarray else force_array(y)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        nodes: Any = self.inputs
        if indexes == (0,) and self._input_indexes_to_retain == (0, 1) \
                and nodes[0].data is not None and nodes[1].data is not None:
            # x * constant: only the constant's variable is needed.
            return _sum_to(Mul().apply((gy, nodes[1].get_variable()))[0], nodes[0].shape),
        x0, x1 = self.get_retained_inputs()
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(Mul().apply((gy, x1))[0], x0.shape))
            else:
                ret.append(sum_to(Mul().apply((gy, x0))[0], x1.shape))
        return tuple(ret)


class MulConstant(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ * {_constant_label(self.value)}'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return force_array(inputs[0] * self.value),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return MulConstant(self.value).apply(grad_outputs)


class Div(FunctionNode):

    @property
    def label(self) -> str:
        return '_ / _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_arithmetic(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return force_array(x0 / x1),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        gx0 = gy / x1
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(gx0, x0.shape))
            else:
                ret.append(sum_to(-gx0 * x0 / x1, x1.shape))
        return tuple(ret)


class DivFromConstant(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_constant_label(self.value)} / _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(self.value / inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (-self.value) / (x * x),


class PowVarVar(FunctionNode):

    @property
    def label(self) -> str:
        return '_ ** _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_arithmetic(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return force_array(x0 ** x1),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(gy * x1 * x0 ** (x1 - 1), x0.shape))
            else:
                ret.append(sum_to(gy * x0 ** x1 * log(x0), x1.shape))
        return tuple(ret)


class PowVarConst(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ ** {_constant_label(self.value)}'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return force_array(inputs[0] ** self.value),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        value = self.value
        if value == 2:
            return grad_outputs[0] * (x * value),
        return grad_outputs[0] * (x ** (value - 1) * value),


class PowConstVar(FunctionNode):

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_constant_label(self.value)} ** _'

    def check_type_forward(self, in_types: Any) -> None:
        _check_unary(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return force_array(self.value ** inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        log_value = numpy.log(self.value).astype(y.dtype)
        return grad_outputs[0] * y * log_value,


class MatMulVarVar(MatMul):
    """``lhs @ rhs``: :class:`~catena.functions.math.matmul.MatMul` without transposes."""

    @property
    def label(self) -> str:
        return '_ @ _'


def _sum_to(x: Any, shape: tuple[int, ...]) -> Variable:
    """:func:`sum_to`, with no call when ``x`` is a Variable of that shape already."""
    if x.__class__ is Variable and x._data.shape == shape:
        return x
    return sum_to(x, shape)


def _convert_value_to_string(value: Any) -> str:
    """How a constant operand appears in a label: ``2``, ``(-2.0)`` or ``constant array``."""
    if isinstance(value, Variable):
        value = value.array
    if numpy.isscalar(value):
        number: Any = value.item() if isinstance(value, numpy.generic) else value
        return f'({number})' if number < 0 else str(number)
    return 'constant array'


def _constant_label(value: Any) -> str:
    if numpy.isscalar(value):
        return str(value)
    return f'constant {getattr(value, "shape", "")}'


def _operand(x: Variable, value: Any, operator: str) -> Any:
    """Returns a Variable, or a scalar cast to ``x``'s dtype for a constant node."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, (int, float, numpy.number, numpy.bool_)):
        return x._data.dtype.type(value)
    if hasattr(value, 'shape') and hasattr(value, 'dtype'):
        if value.dtype != x._data.dtype:
            value = value.astype(x._data.dtype)
        if value.__class__ is x._data.__class__:
            return _new_output(value, False)  # an array of the same kind: no check needed
        return Variable(value, requires_grad=False)
    raise TypeError(
        f'unsupported operand for {operator}: a Variable and a {type(value).__name__}; '
        'expected a Variable, an array or a scalar')


def neg(x: Any) -> Variable:
    """Returns ``-x``."""
    return Neg().apply((x,))[0]


def absolute(x: Any) -> Variable:
    """Returns ``abs(x)``, element-wise."""
    return Absolute().apply((x,))[0]


def add(*xs: Any) -> Variable:
    """Element-wise sum of the inputs, broadcast together.

    With two inputs this is ``xs[0] + xs[1]`` (the second may be a scalar);
    with more it is one node that adds them all.

    Args:
        xs: Variables or arrays of one floating point type.

    Returns:
        Variable: The sum.

    .. admonition:: Example

        >>> x = np.array([1.0, 2.0], dtype=np.float32)
        >>> F.add(x, x, x).array
        array([3., 6.], dtype=float32)
        >>> F.add(x, 1).array
        array([2., 3.], dtype=float32)
    """
    if not xs:
        raise ValueError('add takes at least one input; got none')
    if len(xs) == 2:
        lhs, rhs = xs
        if isinstance(rhs, (int, float, numpy.number, numpy.bool_)):
            return AddConstant(lhs.dtype.type(rhs)).apply((lhs,))[0]
        if not isinstance(rhs, Variable) and getattr(rhs, 'dtype', lhs.dtype) != lhs.dtype:
            rhs = rhs.astype(lhs.dtype)
        return Add().apply((lhs, rhs))[0]
    return MultiAdd().apply(xs)[0]


def _add(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is Variable or (rhs.__class__ is numpy.ndarray
                                     and rhs.dtype is self._data.dtype):
        return Add().apply((self, rhs))[0]
    rhs = _operand(self, rhs, '+')
    if isinstance(rhs, Variable):
        return Add().apply((self, rhs))[0]
    return AddConstant(rhs).apply((self,))[0]


def _sub(self: Variable, rhs: Any) -> Variable:
    rhs = _operand(self, rhs, '-')
    if isinstance(rhs, Variable):
        return Sub().apply((self, rhs))[0]
    return AddConstant(-rhs).apply((self,))[0]


def _rsub(self: Variable, lhs: Any) -> Variable:
    lhs = _operand(self, lhs, '-')
    if isinstance(lhs, Variable):
        return Sub().apply((lhs, self))[0]
    return SubFromConstant(lhs).apply((self,))[0]


def _mul(self: Variable, rhs: Any) -> Variable:
    if rhs.__class__ is Variable or (rhs.__class__ is numpy.ndarray
                                     and rhs.dtype is self._data.dtype):
        return Mul().apply((self, rhs))[0]
    rhs = _operand(self, rhs, '*')
    if isinstance(rhs, Variable):
        return Mul().apply((self, rhs))[0]
    return MulConstant(rhs).apply((self,))[0]


def _div(self: Variable, rhs: Any) -> Variable:
    rhs = _operand(self, rhs, '/')
    if isinstance(rhs, Variable):
        return Div().apply((self, rhs))[0]
    with numpy.errstate(divide='ignore'):
        reciprocal = rhs.dtype.type(1) / rhs  # a Python 1 would promote float32 on NumPy 1.x
    return MulConstant(reciprocal).apply((self,))[0]


def _rdiv(self: Variable, lhs: Any) -> Variable:
    lhs = _operand(self, lhs, '/')
    if isinstance(lhs, Variable):
        return Div().apply((lhs, self))[0]
    return DivFromConstant(lhs).apply((self,))[0]


def _floordiv(self: Variable, rhs: Any) -> Variable:
    # ``x // y`` is ``floor(x / y)``, as in Chainer (no gradient flows through floor).
    from catena.functions.math.floor import floor

    return floor(_div(self, rhs))


def _rfloordiv(self: Variable, lhs: Any) -> Variable:
    from catena.functions.math.floor import floor

    return floor(_rdiv(self, lhs))


def _pow(self: Variable, rhs: Any) -> Variable:
    rhs = _operand(self, rhs, '**')
    if isinstance(rhs, Variable):
        return PowVarVar().apply((self, rhs))[0]
    return PowVarConst(rhs).apply((self,))[0]


def _rpow(self: Variable, lhs: Any) -> Variable:
    lhs = _operand(self, lhs, '**')
    if isinstance(lhs, Variable):
        return PowVarVar().apply((lhs, self))[0]
    return PowConstVar(lhs).apply((self,))[0]


def _matmul(self: Variable, rhs: Any) -> Variable:
    rhs = _operand(self, rhs, '@')
    if not isinstance(rhs, Variable):
        raise TypeError('the operands of @ must be arrays or Variables, not scalars')
    return MatMulVarVar().apply((self, rhs))[0]


def _rmatmul(self: Variable, lhs: Any) -> Variable:
    lhs = _operand(self, lhs, '@')
    if not isinstance(lhs, Variable):
        raise TypeError('the operands of @ must be arrays or Variables, not scalars')
    return MatMulVarVar().apply((lhs, self))[0]


def install_variable_operators(variable_class: type) -> None:
    """Defines the arithmetic operators on the Variable class."""
    add = _engine.operator('add', Add, _add)
    mul = _engine.operator('mul', Mul, _mul)
    operators = {
        '__neg__': neg, '__abs__': absolute,
        '__add__': add, '__radd__': add,
        '__sub__': _sub, '__rsub__': _rsub,
        '__mul__': mul, '__rmul__': mul,
        '__truediv__': _div, '__rtruediv__': _rdiv,
        '__floordiv__': _floordiv, '__rfloordiv__': _rfloordiv,
        '__pow__': _pow, '__rpow__': _rpow,
        '__matmul__': _matmul, '__rmatmul__': _rmatmul,
    }
    for name, function in operators.items():
        setattr(variable_class, name, function)


install_variable_operators(Variable)
