"""Type checks of function inputs (Chainer's ``chainer.utils.type_check``).

``check_type_forward(in_types)`` runs in two modes. In **light mode** (every
call) ``in_types`` is a :class:`LightTypeInfoTuple` holding the input arrays, so
each condition is a plain bool and :func:`expect` only checks ``all(...)``. In
**full mode** (after a light check failed, see :func:`diagnose`) ``in_types`` is
a :class:`TypeInfoTuple` of :class:`Variable` expressions: attributes, indexing,
calls and operators on them build an :class:`Expr` tree, which :func:`expect`
evaluates to explain the failure (``Expect: x.shape[1] == W.shape[1]`` /
``Actual: 3 != 4``).

:func:`expect` tells the modes apart by its arguments. Only
:func:`make_variable` and :func:`in_light_mode` read the thread-local mode,
which is light except while :func:`diagnose` runs a check in full mode.
"""

from __future__ import annotations

import math
import operator
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy

__all__ = [
    'Atom', 'BinaryOperator', 'BoolBinaryOperator', 'Call', 'Constant', 'Expr', 'GetAttr',
    'GetItem', 'InvalidType', 'LightTypeInfoTuple', 'Testable', 'TypeInfo', 'TypeInfoTuple',
    'UnaryOperator', 'Variable', 'diagnose', 'eval', 'expect', 'expect_broadcast_shapes',
    'get_light_types', 'get_types', 'in_light_mode', 'light_mode', 'make_variable', 'prod',
    'same_types',
]


class InvalidType(Exception):
    """Raised when the inputs of a function do not satisfy its type check.

    Args:
        expect: What the check expected, e.g. ``'x.ndim >= 2'``.
        actual: What was found, e.g. ``'1 < 2'``.
        msg: The whole message; by default
            ``'\\nExpect: {expect}\\nActual: {actual}\\n'``.

    Attributes:
        expect (str): What the check expected.
        actual (str): What was found.
        msg (str or None): The message, if given explicitly.
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None) -> None:
        self.expect = expect
        self.actual = actual
        self.msg = msg
        super().__init__(f'\nExpect: {expect}\nActual: {actual}\n' if msg is None else msg)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.expect, self.actual, self.msg)


class _NotASequenceError(TypeError, AssertionError):
    """A non-sequence where arrays were expected (Chainer asserted it)."""


class _ExprToBoolError(RuntimeError):
    """Raised when an :class:`Expr` is used where Python needs a bool."""


class _EvaluationError(Exception):
    """Raised when one node of a tree fails to compute its own value."""

    def __init__(self, node: Expr, error: Exception, *operand: Any) -> None:
        super().__init__(node, error)
        self.node, self.error, self.operand = node, error, operand

    def describe(self) -> str:
        text = f'{self.node}: {type(self.error).__name__}: {self.error}'
        if self.operand:  # the value that was indexed or whose attribute was read
            text += f' (with {self.node._obj} = {_render(self.operand[0])})'  # type: ignore
        return text


# Operator precedence, loosest first, as in Python's grammar (Chainer's numbers).
_COMPARE, _OR, _XOR, _AND, _SHIFT, _ADD, _MUL, _UNARY, _POW, _ATOM = range(-1, 9)


def _render(value: Any, top: bool = False) -> str:
    """Formats a value for a message.

    Strings are bare at the top of a tested comparison (``x.dtype.kind == f``,
    as Chainer prints it) and quoted inside an expression.
    """
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, tuple):
        if len(value) == 1:
            return f'({_render(value[0])},)'
        return '(' + ', '.join(map(_render, value)) + ')'
    if isinstance(value, list):
        return '[' + ', '.join(map(_render, value)) + ']'
    if isinstance(value, str):
        return value if top else repr(value)
    if isinstance(value, numpy.dtype):
        return str(value)
    if isinstance(value, numpy.generic):
        return repr(value.item())
    if isinstance(value, type):
        # As Chainer writes them: <class 'numpy.float32'>.
        return repr(value)
    return '...' if value is Ellipsis else repr(value)


#: Chainer's name of :func:`_render`.
_repr = _render


def _render_key(key: Any) -> str:
    if isinstance(key, slice):
        parts = ['' if p is None else _render(p) for p in (key.start, key.stop, key.step)]
        return ':'.join(parts if key.step is not None else parts[:2])
    if isinstance(key, tuple) and key:
        return ', '.join(map(_render_key, key))
    return _render(key)


def _evaluate(value: Any) -> Any:
    """Evaluates a value that is or holds expressions (raises _EvaluationError)."""
    if isinstance(value, Expr):
        return value._eval()
    if isinstance(value, tuple):
        return tuple(map(_evaluate, value))
    if isinstance(value, list):
        return list(map(_evaluate, value))
    if isinstance(value, slice):
        return slice(_evaluate(value.start), _evaluate(value.stop), _evaluate(value.step))
    return value


def _contains_expr(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return any(map(_contains_expr, value))
    return isinstance(value, Expr)


def _binary(symbol: str, func: Callable[[Any, Any], Any], priority: int,
            right_associative: bool = False) -> tuple[Callable[..., Any], Callable[..., Any]]:
    def method(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, self, other, symbol, func, right_associative)

    def reflected(self: Expr, other: Any) -> BinaryOperator:
        return BinaryOperator(priority, other, self, symbol, func, right_associative)

    return method, reflected


def _comparison(symbol: str, inverse: str, func: Callable[[Any, Any], Any]) -> Any:
    return lambda self, other: BoolBinaryOperator(self, other, symbol, inverse, func)


def _unary(symbol: str, func: Callable[[Any], Any]) -> Any:
    return lambda self: UnaryOperator(_UNARY, self, symbol, func)


class Expr:
    """Abstract syntax tree of an expression, built while a check runs in full mode.

    Attribute access, indexing, calls and Python operators on an ``Expr``
    build a bigger ``Expr``; comparisons build a :class:`BoolBinaryOperator`
    for :func:`expect`. ``str(expr)`` shows the expression as written
    (``x.shape[0] == W.shape[1] * 4``); :func:`eval` computes its value.
    ``and``, ``or``, ``not``, ``if`` and ``in`` raise ``RuntimeError`` on an
    ``Expr``: give each condition to :func:`expect` (``&`` and ``|`` work).

    Args:
        priority: Precedence of the outermost operator (for parentheses).
    """

    __slots__ = ('_priority',)
    __array_ufunc__ = None  # NumPy scalars defer their operators to the expression.
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, priority: int) -> None:
        self._priority = priority

    def _eval(self) -> Any:
        raise NotImplementedError

    @property
    def priority(self) -> int:
        """The precedence of the outermost operator (an atom binds tightest)."""
        return self._priority

    def eval(self) -> Any:
        """Computes the value of the expression.

        Returns:
            The value, e.g. an int for ``x.shape[0]``.

        Raises:
            Exception: The error of the part that cannot be computed (e.g. an
                ``IndexError`` for ``x.shape[3]`` of a 2-dimensional ``x``),
                with a note naming the expression; :func:`type_check.eval
                <eval>` raises an :class:`InvalidType` instead.
        """
        try:
            return self._eval()
        except _EvaluationError as error:
            cause = error.error
            if hasattr(cause, 'add_note'):
                cause.add_note(f'while evaluating the type-check expression {self}: '
                               f'{error.describe()}')
            raise cause from None

    def __getattr__(self, name: str) -> GetAttr:
        # Private and special names never build trees, so that copy, pickle,
        # NumPy and IPython probes (and typos in this module) fail normally.
        if name.startswith('_'):
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> GetItem:
        return GetItem(self, key)

    def __call__(self, *args: Any) -> Call:
        return Call(self, args)

    def __len__(self) -> int:
        return len(eval(self))

    def __iter__(self) -> Iterator[GetItem]:
        # Lets `n, c, h, w = x_type.shape` work in full mode.
        return (GetItem(self, index) for index in range(len(self)))

    def __bool__(self) -> bool:
        raise _ExprToBoolError(
            f"Don't convert the type-check expression '{self}' to bool (with 'and', 'or', "
            "'not', 'if' or 'in'): pass each condition to type_check.expect(...), or get "
            'its value with type_check.eval(...).')

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self}>'

    __eq__ = _comparison('==', '!=', operator.eq)
    __ne__ = _comparison('!=', '==', operator.ne)
    __lt__ = _comparison('<', '>=', operator.lt)
    __le__ = _comparison('<=', '>', operator.le)
    __gt__ = _comparison('>', '<=', operator.gt)
    __ge__ = _comparison('>=', '<', operator.ge)
    __add__, __radd__ = _binary('+', operator.add, _ADD)
    __sub__, __rsub__ = _binary('-', operator.sub, _ADD)
    __mul__, __rmul__ = _binary('*', operator.mul, _MUL)
    __truediv__, __rtruediv__ = _binary('/', operator.truediv, _MUL)
    __floordiv__, __rfloordiv__ = _binary('//', operator.floordiv, _MUL)
    __mod__, __rmod__ = _binary('%', operator.mod, _MUL)
    __pow__, __rpow__ = _binary('**', operator.pow, _POW, right_associative=True)
    __lshift__, __rlshift__ = _binary('<<', operator.lshift, _SHIFT)
    __rshift__, __rrshift__ = _binary('>>', operator.rshift, _SHIFT)
    __and__, __rand__ = _binary('&', operator.and_, _AND)
    __xor__, __rxor__ = _binary('^', operator.xor, _XOR)
    __or__, __ror__ = _binary('|', operator.or_, _OR)
    __neg__ = _unary('-', operator.neg)
    __pos__ = _unary('+', operator.pos)
    __invert__ = _unary('~', operator.invert)


def _as_expr(value: Any) -> Expr:
    return value if isinstance(value, Expr) else Constant(value)


def _operand(expr: Expr, priority: int, parenthesize_equal: bool = True) -> str:
    text = str(expr)
    if expr._priority < priority or (parenthesize_equal and expr._priority == priority):
        return f'({text})'
    return text


class Testable:
    """An expression that :func:`expect` can test and explain."""

    __slots__ = ()

    def expect(self) -> None:
        """Raises :class:`InvalidType` unless the expression holds."""
        raise NotImplementedError


class Atom(Expr):
    """An expression printed without parentheses (a name, an item, a call)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_ATOM)


class Constant(Atom):
    """A literal ``value`` (a tuple or list may hold expressions), printed as its ``repr``."""

    __slots__ = ('value',)

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value
        if isinstance(value, (int, float)) and value < 0:
            self._priority = _UNARY  # `(-1) ** n` keeps its parentheses.

    def __str__(self) -> str:
        return _render(self.value)

    def _eval(self) -> Any:
        return _evaluate(self.value)


class Variable(Atom):
    """A ``value`` printed as its ``name`` (e.g. ``'in_size'``); see :func:`make_variable`."""

    __slots__ = ('value', 'name')

    def __init__(self, value: Any, name: str) -> None:
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self) -> str:
        return self.name

    def _eval(self) -> Any:
        return self.value


class GetAttr(Atom):
    """``obj.name``: reads attribute ``name`` of the value of ``obj``."""

    __slots__ = ('_obj', '_name')

    def __init__(self, obj: Any, name: Any) -> None:
        super().__init__()
        self._obj = _as_expr(obj)
        self._name = name

    def __str__(self) -> str:
        name = self._name.value if isinstance(self._name, Constant) else self._name
        if isinstance(name, str) and name.isidentifier():
            return f'{_operand(self._obj, _ATOM, False)}.{name}'
        return f'getattr({self._obj}, {_render(self._name)})'

    def _eval(self) -> Any:
        obj = self._obj._eval()
        try:
            return getattr(obj, _evaluate(self._name))
        except Exception as error:
            raise _EvaluationError(self, error, obj) from error


class GetItem(Atom):
    """``obj[key]``: indexes the value of ``obj`` (``key``: int, slice, tuple or expression)."""

    __slots__ = ('_obj', '_key')

    def __init__(self, obj: Any, key: Any) -> None:
        super().__init__()
        self._obj = _as_expr(obj)
        self._key = key

    def __str__(self) -> str:
        return f'{_operand(self._obj, _ATOM, False)}[{_render_key(self._key)}]'

    def _eval(self) -> Any:
        obj = self._obj._eval()
        key = _evaluate(self._key)
        try:
            return obj[key]
        except Exception as error:
            raise _EvaluationError(self, error, obj) from error


class Call(Atom):
    """``obj(*args)``: calls the value of ``obj``, e.g. ``make_variable(numpy.sum, 'sum')``."""

    __slots__ = ('_obj', '_args')

    def __init__(self, obj: Any, args: tuple[Any, ...]) -> None:
        super().__init__()
        self._obj = _as_expr(obj)
        self._args = tuple(args)

    def __str__(self) -> str:
        return f'{_operand(self._obj, _ATOM, False)}({", ".join(map(_render, self._args))})'

    def _eval(self) -> Any:
        func = self._obj._eval()
        args = list(map(_evaluate, self._args))
        try:
            return func(*args)
        except Exception as error:
            raise _EvaluationError(self, error) from error


class UnaryOperator(Expr):
    """A prefix operator ``exp`` (``-``, ``+``, ``~``) on ``term``, computed by ``func``."""

    __slots__ = ('_term', '_exp', '_func')

    def __init__(self, priority: int, term: Any, exp: str, func: Callable[[Any], Any]) -> None:
        super().__init__(priority)
        self._term = _as_expr(term)
        self._exp = exp
        self._func = func

    def __str__(self) -> str:
        return self._exp + _operand(self._term, self._priority, False)

    def _eval(self) -> Any:
        value = self._term._eval()
        try:
            return self._func(value)
        except Exception as error:
            raise _EvaluationError(self, error) from error


class BinaryOperator(Expr):
    """An infix operator ``lhs exp rhs`` (e.g. ``x + y``), computed by ``func(lhs, rhs)``.

    ``priority`` is its precedence; ``right_associative`` is true for ``**``.
    """

    __slots__ = ('_lhs', '_rhs', '_exp', '_func', '_right_associative')

    def __init__(self, priority: int, lhs: Any, rhs: Any, exp: str,
                 func: Callable[[Any, Any], Any], right_associative: bool = False) -> None:
        super().__init__(priority)
        self._lhs = _as_expr(lhs)
        self._rhs = _as_expr(rhs)
        self._exp = exp
        self._func = func
        self._right_associative = right_associative

    def __str__(self) -> str:
        left = _operand(self._lhs, self._priority, self._right_associative)
        right = _operand(self._rhs, self._priority, not self._right_associative)
        return f'{left} {self._exp} {right}'

    def _apply(self, left: Any, right: Any) -> Any:
        try:
            return self._func(left, right)
        except Exception as error:
            raise _EvaluationError(self, error) from error

    def _eval(self) -> Any:
        return self._apply(self._lhs._eval(), self._rhs._eval())


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison ``lhs exp rhs`` that :func:`expect` tests.

    ``inv`` is the negated operator, shown on the ``Actual:`` line (``3 != 4``).
    """

    __slots__ = ('_inv',)

    def __init__(self, lhs: Any, rhs: Any, exp: str, inv: str,
                 func: Callable[[Any, Any], Any]) -> None:
        super().__init__(_COMPARE, lhs, rhs, exp, func)
        self._inv = inv

    def __str__(self) -> str:
        # Comparisons chain in Python, so nested ones keep their parentheses.
        return f'{_operand(self._lhs, _COMPARE)} {self._exp} {_operand(self._rhs, _COMPARE)}'

    def expect(self) -> None:
        """Raises :class:`InvalidType` unless the comparison holds."""
        sides = [_render(s.value, True) if isinstance(s, Constant) else str(s)
                 for s in (self._lhs, self._rhs)]
        expected = f'{sides[0]} {self._exp} {sides[1]}'
        try:
            left, right = self._lhs._eval(), self._rhs._eval()
            holds = self._apply(left, right)
            try:
                if holds:
                    return
            except Exception as error:  # e.g. an array compared with an array
                raise _EvaluationError(self, error) from error
        except _EvaluationError as error:
            raise InvalidType(expected, error.describe()) from error.error
        raise InvalidType(expected, f'{_render(left, True)} {self._inv} {_render(right, True)}')


def _array_library(array_type: type) -> str:
    return array_type.__module__.partition('.')[0]


class _SameTypes(Atom, Testable):
    """Full-mode ``same_types(x, W)``: whether the arrays come from one library."""

    __slots__ = ('_args',)

    def __init__(self, args: tuple[Any, ...]) -> None:
        super().__init__()
        self._args = args

    def __str__(self) -> str:
        return f'same_types({", ".join(map(_render, self._args))})'

    def _array_types(self) -> list[type | None]:
        values = map(_evaluate, self._args)
        return [v.array_type if isinstance(v, TypeInfo) else type(v) for v in values]

    def _eval(self) -> bool:
        return len({_array_library(t) for t in self._array_types() if t is not None}) <= 1

    def expect(self) -> None:
        """Raises :class:`InvalidType` unless the arrays come from one library."""
        try:
            types = self._array_types()
        except _EvaluationError as error:
            raise InvalidType(str(self), error.describe()) from error.error
        if len({_array_library(t) for t in types if t is not None}) > 1:
            actual = ', '.join(f'{_render(a)}: {_render(t)}' for a, t in zip(self._args, types))
            raise InvalidType(str(self), actual)


class TypeInfo:
    """Type information of an array: the value of a full-mode ``in_types[i]``.

    Args:
        shape: The array's shape.
        dtype: The array's dtype (None for an absent gradient).
        array_type: The array's class, for :func:`same_types`.

    Attributes:
        shape (tuple of int): The shape.
        dtype (numpy.dtype or None): The dtype.
        ndim (int): ``len(shape)``.
        array_type (type or None): The array's class.
    """

    __slots__ = ('shape', 'dtype', 'ndim', 'array_type')

    def __init__(self, shape: Sequence[int], dtype: Any, array_type: type | None = None) -> None:
        self.shape = tuple(shape)
        self.dtype = dtype
        self.ndim = len(self.shape)
        self.array_type = array_type

    @property
    def size(self) -> int:
        """The number of elements."""
        return math.prod(self.shape)

    def __repr__(self) -> str:
        return f'TypeInfo(shape={self.shape}, dtype={_render(self.dtype)})'


class TypeInfoTuple(tuple):
    """Full-mode ``in_types``: :class:`Variable` expressions whose values are :class:`TypeInfo`.

    Built by :func:`get_types`. Element ``i`` is named ``in_types[i]`` until
    :func:`_argname` renames it.

    Attributes:
        name (str): The tuple's name, e.g. ``'in_types'``.
    """

    name = 'in_types'

    def size(self) -> Variable:
        """Returns the number of elements as an expression, shown as ``in_types.size()``."""
        return Variable(len(self), f'{self.name}.size()')


class LightTypeInfoTuple(tuple):
    """Light-mode ``in_types``: the input arrays themselves (``LightTypeInfoTuple(in_data)``).

    Attributes:
        name (str): The tuple's name, ``'in_types'`` unless set.
    """

    name = 'in_types'

    def size(self) -> int:
        """Returns the number of elements."""
        return len(self)


def get_types(data: Sequence[Any], name: str, accept_none: bool,
              shapes: Sequence[Sequence[int] | None] | None = None) -> TypeInfoTuple:
    """Builds the full-mode type information of arrays.

    Args:
        data: The arrays (anything with ``shape`` and ``dtype``).
        name: The tuple's name; element ``i`` is named ``{name}[{i}]``.
        accept_none: Whether None (an absent gradient) is allowed; its
            :class:`TypeInfo` has shape ``()`` and dtype None.
        shapes: Shapes to use instead of the arrays' own, one per array
            (a None entry keeps the array's shape).

    Returns:
        TypeInfoTuple: One :class:`Variable` per array.

    Raises:
        TypeError: If ``data`` is not a sequence (the error is also an
            ``AssertionError``, which Chainer raised).
        InvalidType: If an element is not an array, or is None while
            ``accept_none`` is false.
    """
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise _NotASequenceError(
            f'get_types expects a sequence of arrays, got {_render(type(data))}')
    data = tuple(data)
    if shapes is not None and len(shapes) != len(data):
        raise ValueError(f'got {len(shapes)} shapes for {len(data)} arrays')
    infos = []
    for index, array in enumerate(data):
        var_name = f'{name}[{index}]'
        shape = None if shapes is None else shapes[index]
        if array is None and accept_none:
            info = TypeInfo(() if shape is None else shape, None, type(None))
        elif hasattr(array, 'shape') and hasattr(array, 'dtype'):
            info = TypeInfo(array.shape if shape is None else shape, array.dtype, type(array))
        else:
            raise InvalidType(f'{var_name} is an array', f'{var_name} is {_render(type(array))}')
        infos.append(Variable(info, var_name))
    types = TypeInfoTuple(infos)
    types.name = name
    return types


def get_light_types(data: Sequence[Any]) -> LightTypeInfoTuple:
    """Returns the light-mode type information of arrays: the arrays themselves."""
    return LightTypeInfoTuple(data)


def _argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Names the elements of full-mode ``in_types`` for messages (a no-op in light mode).

    Elements beyond ``names`` keep their default names.

    Args:
        in_types: A :class:`TypeInfoTuple`, or a slice of one.
        names: The names, e.g. ``('x', 'W')``.

    Raises:
        InvalidType: In full mode, if there are fewer types than names.
    """
    if type(in_types) is LightTypeInfoTuple:
        return
    full = isinstance(in_types, TypeInfoTuple)
    for in_type, name in zip(in_types, names):
        if isinstance(in_type, Variable):
            in_type.name = name
            full = True
    if full and len(in_types) < len(names):
        raise InvalidType(f'{len(names)} argument(s) ({", ".join(names)})',
                          f'{len(in_types)} argument(s)')


def expect(*bool_exprs: Any) -> None:
    """Tests conditions in order; raises on the first that does not hold.

    Light mode passes plain bools; full mode passes :class:`Expr` trees
    (usually comparisons), evaluated to explain a failure.

    Args:
        bool_exprs: The conditions.

    Raises:
        InvalidType: If a condition does not hold. With plain bools its
            ``expect`` and ``actual`` are empty (:func:`diagnose` explains it);
            with expressions they show the condition and the values found.
    """
    try:
        if all(bool_exprs):
            return
    except _ExprToBoolError:
        pass
    if not _contains_expr(bool_exprs):
        raise InvalidType('', '')
    for condition in bool_exprs:
        if isinstance(condition, Testable):
            condition.expect()
        elif isinstance(condition, Expr):
            value = eval(condition)
            if not value:
                raise InvalidType(str(condition), _render(value))
        elif not condition:
            raise InvalidType('True', _render(condition))


def eval(exp: Any) -> Any:
    """Returns the value of an expression, or a plain (light-mode) value as is.

    Args:
        exp: An :class:`Expr` or a plain value (a tuple or list may hold
            expressions).

    Returns:
        The value.

    Raises:
        InvalidType: If the expression cannot be evaluated.
    """
    if isinstance(exp, Expr) or isinstance(exp, (tuple, list)) and _contains_expr(exp):
        try:
            return _evaluate(exp)
        except _EvaluationError as error:
            raise InvalidType(_render(exp), error.describe()) from error.error
    return exp


def make_variable(value: Any, name: str) -> Any:
    """Names a value for messages: ``Variable(value, name)`` in full mode, ``value`` in light mode.

    Args:
        value: The value, e.g. ``self.in_size``.
        name: The name shown in messages, e.g. ``'in_size'``.

    Returns:
        ``value`` in light mode, else a :class:`Variable`.
    """
    return value if _state.light else Variable(value, name)


def same_types(*arrays: Any) -> Any:
    """Tells whether arrays all come from one array library (all NumPy, all CuPy, ...).

    As in Chainer this compares array libraries, not dtypes (forward methods
    use it to refuse NumPy and CuPy inputs mixed); compare dtypes with
    ``x_type.dtype == w_type.dtype``.

    Args:
        arrays: Arrays, or full-mode type expressions (``in_types[i]``).

    Returns:
        A bool for arrays; for expressions, a testable expression
        ``same_types(x, W)`` to give to :func:`expect`.
    """
    kinds = set(map(type, arrays))
    for kind in kinds:
        if issubclass(kind, Expr):
            return _SameTypes(arrays)
    return len(kinds) <= 1 or len(set(map(_array_library, kinds))) <= 1


_prod = Variable(math.prod, 'prod')


def prod(xs: Any) -> Any:
    """The product of numbers, e.g. the size of a shape.

    Args:
        xs: Numbers, or an expression of them (``x_type.shape``).

    Returns:
        The product, or for an expression the expression ``prod(xs)``.
    """
    if isinstance(xs, Expr):
        return _prod(xs)
    result = math.prod(xs)
    return _prod(xs) if isinstance(result, Expr) else result  # xs held expressions


def _broadcastable(shapes: Sequence[tuple[int, ...]]) -> bool:
    first = shapes[0]
    for shape in shapes:
        if shape != first:
            break
    else:
        return True
    # Axes are matched from the right; a missing leading axis counts as 1.
    for axis in range(-1, -1 - max(map(len, shapes)), -1):
        size = 1
        for shape in shapes:
            if -axis <= len(shape):
                dim = shape[axis]
                if dim != 1:
                    if size != 1 and dim != size:
                        return False
                    size = dim
    return True


def expect_broadcast_shapes(*shapes: Any, allow_none: bool = False) -> None:
    """Checks that shapes can be broadcast together.

    Args:
        shapes: Tuples (light mode) or shape expressions such as
            ``x_type.shape`` (full mode).
        allow_none: Whether None shapes are allowed (and ignored).

    Raises:
        InvalidType: If the shapes cannot be broadcast together, or one is
            None while ``allow_none`` is false.
    """
    if len(shapes) == 2 and type(shapes[0]) is tuple is type(shapes[1]) and shapes[0] == shapes[1]:
        return
    for shape in shapes:
        if type(shape) is not tuple:
            break
    else:
        if not shapes or _broadcastable(shapes):
            return
    labels = [_render(s) if _contains_expr(s) else None for s in shapes]
    values = [eval(s) for s in shapes]
    present = [tuple(v) for v in values if v is not None]
    if len(present) == len(values) or allow_none:
        if not present or _broadcastable(present):
            return
        expected = 'broadcastable shapes: '
    else:
        expected = 'shapes, not None: '
    expected += ', '.join(_render(v) if k is None else k for k, v in zip(labels, values))
    raise InvalidType(expected, ', '.join(
        _render(v) if k is None else f'{k} = {_render(v)}' for k, v in zip(labels, values)))


def diagnose(check_fn: Callable[[TypeInfoTuple], Any], in_data: Sequence[Any], label: str,
             phase: str = 'Forward', light_error: BaseException | None = None, *,
             name: str = 'in_types', accept_none: bool = False) -> None:
    """Re-runs a failed light-mode check in full mode and raises an explained error.

    ``FunctionNode.apply`` calls it when ``check_fn`` failed on a
    :class:`LightTypeInfoTuple`::

        try:
            self.check_type_forward(type_check.LightTypeInfoTuple(in_data))
        except Exception as error:
            type_check.diagnose(self.check_type_forward, in_data, self.label,
                                'Forward', error)

    Args:
        check_fn: The check, called with a :class:`TypeInfoTuple`.
        in_data: The arrays that were checked.
        label: The function's label, e.g. ``'ReLU'``.
        phase: ``'Forward'`` or ``'Backward'``.
        light_error: The light-mode failure, raised again if the full-mode
            check passes (so that no failure is lost).
        name: The tuple's name in messages.
        accept_none: Whether None entries (absent gradients) are allowed.

    Raises:
        InvalidType: ``Invalid operation is performed in: {label} ({phase})``
            followed by the ``Expect:`` and ``Actual:`` lines. Another
            exception raised by the check becomes an InvalidType chained to it.
        BaseException: ``light_error``, if the full-mode check passes.
    """
    header = f'Invalid operation is performed in: {label} ({phase})\n'
    with _full_mode:
        try:
            types = get_types(in_data, name, accept_none)
        except InvalidType as error:
            raise _labelled(_named_non_array(check_fn, in_data, name, error), header) from None
        try:
            check_fn(types)
        except InvalidType as error:
            raise _labelled(error, header) from error.__cause__
        except Exception as error:
            check_name = getattr(check_fn, '__qualname__', None) or repr(check_fn)
            raise _labelled(InvalidType(f'{check_name} to complete',
                                        f'{type(error).__name__}: {error}'), header) from error
    if isinstance(light_error, InvalidType) and light_error.msg is None:
        raise InvalidType(light_error.expect, light_error.actual, (
            f'{header}\nThe type check failed in light mode but passed in full mode; it must '
            'not depend on the mode (type_check.in_light_mode()).\n')) from light_error
    if light_error is not None:
        raise light_error


def _is_array(value: Any) -> bool:
    return hasattr(value, 'shape') and hasattr(value, 'dtype')


def _input_names(check_fn: Callable[[TypeInfoTuple], Any], in_data: Sequence[Any],
                 name: str) -> list[str]:
    """The names ``check_fn`` gives its inputs (``type_check._argname``), in full mode.

    The check runs with None standing for every non-array input, only to
    learn the names; an input it does not name keeps ``{name}[{i}]``.
    """
    types = get_types([x if _is_array(x) else None for x in in_data], name, accept_none=True)
    with _full_mode:
        try:
            check_fn(types)
        except Exception:  # noqa: BLE001, S110 - the names are all this run is for
            pass
    return [info.name for info in types]


def _named_non_array(check_fn: Callable[[TypeInfoTuple], Any], in_data: Sequence[Any],
                     name: str, error: InvalidType) -> InvalidType:
    """``error`` (an input is not an array), naming the input as the check names it."""
    data = tuple(in_data)
    for index, (value, arg) in enumerate(zip(data, _input_names(check_fn, data, name))):
        default = f'{name}[{index}]'
        if not _is_array(value) and arg != default:
            return InvalidType(f'{arg} ({default}) is an array',
                               f'{arg} is {_render(type(value))}')
    return error


def non_array_input(node: Any, inputs: Any, error: TypeError) -> TypeError:
    """The error for an input of ``node.apply`` that is neither a Variable, an array nor None.

    ``FunctionNode.apply`` calls it when turning its inputs into Variables
    failed. The message names the input as ``node``'s type check names it::

        ReLU: x must be a Variable or an array; got 'a'

    Args:
        node: The :class:`~catena.FunctionNode` being applied.
        inputs: Its inputs, as given to ``apply``.
        error: The error that building a Variable raised; returned as it is
            when no input can be blamed (``inputs`` is an iterator).
    """
    from catena.utils import _validate
    from catena.variable import Variable

    if not isinstance(inputs, Sequence):
        if hasattr(inputs, '__iter__'):
            return error
        return TypeError(f'{node.label}: the inputs must be a sequence of Variables or arrays; '
                         f'got {_validate.show(inputs)}')
    data = [x.array if isinstance(x, Variable) else x for x in inputs]
    bad = [i for i, x in enumerate(data) if x is not None and
           (not _is_array(x) or isinstance(x, numpy.generic))]
    if not bad:
        return error
    if node._checks_types or 'check_type_forward' in vars(node):
        names = _input_names(node.check_type_forward, [None if i in bad else x
                                                       for i, x in enumerate(data)], 'in_types')
    else:
        names = [f'in_types[{i}]' for i in range(len(data))]
    index = bad[0]
    arg = f'input {index}' if names[index] == f'in_types[{index}]' else names[index]
    return TypeError(f'{node.label}: {arg} must be a Variable or an array; '
                     f'got {_validate.show(data[index])}')


def _labelled(error: InvalidType, header: str) -> InvalidType:
    body = str(error) if error.msg is None else '\n' + error.msg
    return InvalidType(error.expect, error.actual, header + body)


class _ModeState(threading.local):
    light = True

    def __init__(self) -> None:
        self.saved: list[bool] = []


_state = _ModeState()


class _Mode:
    """Context manager setting the current thread's type-check mode."""

    __slots__ = ('_light',)

    def __init__(self, light: bool) -> None:
        self._light = light

    def __enter__(self) -> None:
        _state.saved.append(_state.light)
        _state.light = self._light

    def __exit__(self, *exc_info: Any) -> None:
        _state.light = _state.saved.pop()

    def __bool__(self) -> bool:
        return _state.light == self._light

    def __repr__(self) -> str:
        return 'type_check.light_mode' if self._light else 'type_check._full_mode'


#: ``with type_check.light_mode:`` runs code in light mode, the default;
#: ``bool(type_check.light_mode)`` tells whether the thread is in light mode.
light_mode = _Mode(True)
_full_mode = _Mode(False)


def in_light_mode() -> bool:
    """Tells whether type checks in the current thread run in light mode.

    Returns:
        bool: False only while :func:`diagnose` runs a check in full mode.
    """
    return _state.light
