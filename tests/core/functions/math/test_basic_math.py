"""The arithmetic operators of Variable: + - * / ** with Variable, array and
scalar operands (both sides) and broadcasting, unary -, and abs."""

# ruff: noqa: NPY002

import operator

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

OPERATORS = {
    'add': operator.add,
    'sub': operator.sub,
    'mul': operator.mul,
    'div': operator.truediv,
    'pow': operator.pow,
}


def _lhs(op, shape):
    if op == 'pow':
        return np.random.uniform(0.5, 2.0, shape)  # a positive base
    return np.random.uniform(-1, 1, shape)


def _rhs(op, shape):
    if op == 'div':  # a denominator away from zero
        sign = np.where(np.random.uniform(-1, 1, shape) < 0, -1.0, 1.0)
        return sign * np.random.uniform(0.5, 1.5, shape)
    if op == 'pow':
        return np.random.uniform(-1.5, 1.5, shape)
    return np.random.uniform(-1, 1, shape)


def _reference(op, lhs, rhs, dtype):
    """The expected result, computed in float64 with the operands rounded to dtype."""
    lhs = np.asarray(lhs, dtype).astype(np.float64)
    rhs = np.asarray(rhs, dtype).astype(np.float64)
    if op == 'add':
        out = lhs + rhs
    elif op == 'sub':
        out = lhs - rhs
    elif op == 'mul':
        out = lhs * rhs
    elif op == 'div':
        out = lhs / rhs
    else:
        out = np.exp(rhs * np.log(lhs))
    return np.asarray(out, dtype=dtype)


class _BinaryBase(testing.FunctionTestCase):
    """``kind`` says which operands are Variables (the inputs) and which are constants.

    var_var: lhs OP rhs, both Variables.
    var_array / array_var: a Variable and an array constant (the array on either side).
    var_scalar / scalar_var: a Variable and a Python scalar (on either side).
    """

    __test__ = False

    def generate_inputs(self):
        lhs_shape, rhs_shape = self.shapes
        lhs = _lhs(self.op, lhs_shape).astype(self.dtype)
        rhs = _rhs(self.op, rhs_shape).astype(self.dtype)
        if self.kind == 'var_var':
            return lhs, rhs
        if self.kind in ('var_array', 'var_scalar'):
            self.constant = rhs if self.kind == 'var_array' else float(rhs)
            return lhs,
        self.constant = lhs if self.kind == 'array_var' else float(lhs)
        return rhs,

    def forward(self, inputs, device):
        function = OPERATORS[self.op]
        if self.kind == 'var_var':
            y = function(*inputs)
        else:
            constant = self.constant
            if isinstance(constant, np.ndarray):
                constant = device.send_array(constant)
            x, = inputs
            if self.kind in ('var_array', 'var_scalar'):
                y = function(x, constant)
            else:
                y = function(constant, x)
        assert isinstance(y, catena.Variable) and y.dtype == inputs[0].dtype
        return y,

    def forward_expected(self, inputs):
        if self.kind == 'var_var':
            lhs, rhs = inputs
        elif self.kind in ('var_array', 'var_scalar'):
            lhs, rhs = inputs[0], self.constant
        else:
            lhs, rhs = self.constant, inputs[0]
        return _reference(self.op, lhs, rhs, self.dtype),


@testing.parameterize(*testing.product({
    'op': sorted(OPERATORS),
    'kind': ['var_var'],
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2)), ((), (2,)), ((), ())],
}))
class TestBinaryVariableVariable(_BinaryBase):
    pass


@testing.parameterize(*testing.product({
    'op': sorted(OPERATORS),
    'kind': ['var_array', 'array_var', 'var_scalar', 'scalar_var'],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestBinaryWithConstant(_BinaryBase):

    def setUp(self):
        # Arrays broadcast against the variable; scalars are 0-d before float().
        self.shapes = {
            'var_array': ((3, 2), (2,)), 'array_var': ((2,), (3, 2)),
            'var_scalar': ((3, 2), ()), 'scalar_var': ((), (3, 2)),
        }[self.kind]


@testing.parameterize(*testing.product({
    'op': ['neg', 'abs'],
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestUnary(testing.FunctionTestCase):

    def generate_inputs(self):
        # |x| >= 0.1: away from the kink of abs at zero.
        sign = np.where(np.random.uniform(-1, 1, self.shape) < 0, -1.0, 1.0)
        return (sign * np.random.uniform(0.1, 1.0, self.shape)).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return (-x if self.op == 'neg' else abs(x)),

    def forward_expected(self, inputs):
        x, = inputs
        if self.op == 'neg':
            return np.asarray(0 - x, dtype=self.dtype),
        return np.asarray(np.where(x < 0, -x, x), dtype=self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'exponent': [2, 3, 0.5],
}))
class TestPowerWithConstantExponent(testing.FunctionTestCase):
    """``x ** c`` with int and float constants (2 has its own backward path)."""

    def generate_inputs(self):
        return np.random.uniform(0.5, 2.0, (3, 2)).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return x ** self.exponent,

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return np.asarray(np.exp(self.exponent * np.log(x)), dtype=self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float16, np.float32, np.float64]}))
class TestAbsoluteFunction(testing.FunctionTestCase):
    """F.absolute, the function behind abs(x)."""

    dodge_nondifferentiable = True

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.absolute(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.sqrt(x.astype(np.float64) ** 2).astype(self.dtype),


# ----------------------------------------------------------------- plain tests

def test_gradients_of_each_operator():
    a = catena.Variable(np.array([2.0, 3.0]))
    b = catena.Variable(np.array([4.0, 0.5]))
    cases = [
        (lambda: a + b, [1, 1], [1, 1]),
        (lambda: a - b, [1, 1], [-1, -1]),
        (lambda: a * b, [4.0, 0.5], [2.0, 3.0]),
        (lambda: a / b, [0.25, 2.0], [-2.0 / 16, -3.0 / 0.25]),
        (lambda: a ** b, [4 * 2.0 ** 3, 0.5 * 3.0 ** -0.5],
         [2.0 ** 4 * np.log(2.0), 3.0 ** 0.5 * np.log(3.0)]),
    ]
    for make, grad_a, grad_b in cases:
        a.cleargrad()
        b.cleargrad()
        F.sum(make()).backward()
        np.testing.assert_allclose(a.grad, grad_a, rtol=1e-12)
        np.testing.assert_allclose(b.grad, grad_b, rtol=1e-12)


def test_gradients_with_constants():
    x = catena.Variable(np.array([2.0, 4.0]))
    cases = [
        (lambda: 3 - x, [-1.0, -1.0]),
        (lambda: 8 / x, [-2.0, -0.5]),
        (lambda: x / 4, [0.25, 0.25]),
        (lambda: 2 ** x, [4 * np.log(2.0), 16 * np.log(2.0)]),
        (lambda: x ** 2, [4.0, 8.0]),
        (lambda: -x, [-1.0, -1.0]),
        (lambda: abs(-x), [1.0, 1.0]),
        (lambda: np.array([1.0, 2.0]) * x, [1.0, 2.0]),
    ]
    for make, expected in cases:
        x.cleargrad()
        F.sum(make()).backward()
        np.testing.assert_allclose(x.grad, expected, rtol=1e-12)


def test_broadcast_gradients_are_summed_to_the_operand_shapes():
    a = catena.Variable(np.ones((3, 1), np.float32))
    b = catena.Variable(np.full((2,), 2.0, np.float32))
    F.sum(a * b).backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (2,)
    np.testing.assert_array_equal(a.grad, [[4.0], [4.0], [4.0]])
    np.testing.assert_array_equal(b.grad, [3.0, 3.0])


def test_same_variable_on_both_sides_accumulates():
    x = catena.Variable(np.array([3.0]))
    F.sum(x * x + x).backward()
    np.testing.assert_array_equal(x.grad, [7.0])


@pytest.mark.parametrize('dtype', [np.float16, np.float32])
@pytest.mark.parametrize('constant', [2, 2.5, np.float64(2.5), np.array([1.0, 2.0])])
def test_constants_take_the_variable_dtype(dtype, constant):
    x = catena.Variable(np.array([1.0, 2.0], dtype))
    for y in (x + constant, constant + x, x - constant, constant - x, x * constant,
              constant * x, x / constant, constant / x, x ** constant, constant ** x):
        assert y.dtype == dtype


def test_array_operand_does_not_require_grad():
    x = catena.Variable(np.array([1.0, 2.0]))
    constant = np.array([3.0, 4.0])
    y = x * constant
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, constant)
    np.testing.assert_array_equal(constant, [3.0, 4.0])


def test_mismatched_dtypes_between_variables_are_rejected():
    a = catena.Variable(np.ones(2, np.float32))
    b = catena.Variable(np.ones(2, np.float64))
    with pytest.raises(InvalidType, match=r'lhs\.dtype == rhs\.dtype'):
        a + b


def test_unbroadcastable_shapes_are_rejected():
    a = catena.Variable(np.ones((2, 3), np.float32))
    b = catena.Variable(np.ones((4,), np.float32))
    with pytest.raises(InvalidType, match=r'lhs\.shape = \(2, 3\), rhs\.shape = \(4,\)'):
        a * b


def test_integer_variables_are_rejected():
    x = catena.Variable(np.arange(3))
    with pytest.raises(InvalidType, match=r'dtype\.kind == f'):
        x + 1
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        -x


@pytest.mark.parametrize('operand', ['a', None, [1.0, 2.0]])
def test_unsupported_operands_raise_type_error(operand):
    x = catena.Variable(np.ones(2, np.float32))
    with pytest.raises(TypeError, match='unsupported operand'):
        x + operand
