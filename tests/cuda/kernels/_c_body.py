"""A strict interpreter of CuPy ElementwiseKernel bodies on NumPy arrays (tests only).

It runs the body of a :class:`catena_cuda.kernels._elementwise.Spec` on the
CPU, element-wise over whole NumPy arrays, with C's and CuPy's typing:

- statements: ``TYPE name = expr;``, ``name = expr;`` and ``name op= expr;``
  (``op`` one of ``+ - /``); ``TYPE`` is a type placeholder (``T``, ``W``)
  or ``bool``;
- expressions: names, ``+ - /``, ``< > <= >= == !=``, ``&& || !``, unary
  ``-``, ``c ? a : b``, parentheses, casts ``(T)``, the functions ``sqrt
  exp expm1 tanh`` and ``mul_rn(a, b)`` (the product from the kernels'
  preamble); a number may appear only as the operand of a cast, and must be
  exact in the cast's type;
- ``*`` is refused: NVRTC may fuse a product into a following sum (an FMA,
  rounded once), so kernels multiply with ``mul_rn``, which it never fuses;
- CuPy's ``float16`` has no arithmetic of its own: it converts to
  ``float``, so any operation on float16 values is done in float32 and has
  type float32 (rounded back to float16 only when stored in a float16
  variable), exactly as on the GPU;
- no implicit conversion is accepted except storing a float32 value into a
  float16 variable: operands of an operation, branches of ``?:`` and
  assigned values must have one type. Casts from float64 to float16 are
  refused too (CUDA's and NumPy's roundings may differ there).

Anything outside this subset raises :class:`BodyError`: an unknown token,
function or name, a statement of another form, a write to an input
parameter, a read of an output that has no value yet, an output never
written, a declaration that shadows a parameter, a C keyword or a CUDA math
function. That keeps the kernels within what this interpreter checks.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy

FLOAT16 = numpy.dtype(numpy.float16)
FLOAT32 = numpy.dtype(numpy.float32)
FLOAT64 = numpy.dtype(numpy.float64)
BOOL = numpy.dtype(numpy.bool_)
FLOATS = (FLOAT16, FLOAT32, FLOAT64)

FUNCTIONS: dict[str, Callable[..., Any]] = {
    'sqrt': numpy.sqrt, 'exp': numpy.exp, 'expm1': numpy.expm1, 'tanh': numpy.tanh,
    'mul_rn': numpy.multiply,
}

_ARITHMETIC = {'+': numpy.add, '-': numpy.subtract, '/': numpy.divide}
_COMPARISONS = {'<': numpy.less, '>': numpy.greater, '<=': numpy.less_equal,
                '>=': numpy.greater_equal, '==': numpy.equal, '!=': numpy.not_equal}
_LOGICAL = {'&&': numpy.logical_and, '||': numpy.logical_or}

# C and C++ keywords, CUDA's type names and math functions, CuPy's loop names.
RESERVED = frozenset('''
auto bool break case char const continue default do double else enum extern float for goto
if inline int long register return short signed sizeof static struct switch typedef union
unsigned void volatile while class new delete this template typename namespace using true
false operator private public protected virtual friend explicit mutable nullptr
half float16 bfloat16 complex size_t ptrdiff_t
sqrt exp expm1 tanh log log1p log2 log10 pow min max fmin fmax fabs abs floor ceil round
trunc sin cos tan sinh cosh asin acos atan atan2 isnan isinf isfinite signbit copysign rsqrt
exp2 erf erfc fma hypot cbrt mul_rn
i
'''.split())

_TOKEN = re.compile(r'''
    \s*(?:
      (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)(?![\w.])
    | (?P<name>[A-Za-z_]\w*)
    | (?P<op>&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|[-+*/<>=!?:(),;])
    )''', re.VERBOSE)


class BodyError(Exception):
    """The body is outside the subset this interpreter understands, or breaks its rules."""


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    while position < len(text):
        if text[position:].strip() == '':
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise BodyError(f'cannot read the body at {text[position:position + 20]!r}')
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


# ---------------------------------------------------------------------------
# Syntax: statements and expression trees
# ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Statement:
    """One statement: a declaration (``type`` set), an assignment or ``op=``."""

    target: str
    expr: Any
    type: str | None = None
    op: str | None = None


class _Parser:
    def __init__(self, text: str, type_names: frozenset[str]) -> None:
        self.tokens = _tokenize(text)
        self.position = 0
        self.type_names = type_names

    def peek(self, offset: int = 0) -> tuple[str, str] | None:
        index = self.position + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def next(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise BodyError('the body ends in the middle of a statement')
        self.position += 1
        return token

    def expect(self, value: str) -> None:
        token = self.next()
        if token[1] != value:
            raise BodyError(f'expected {value!r}, found {token[1]!r}')

    def statements(self) -> list[Statement]:
        result = []
        while self.peek() is not None:
            result.append(self.statement())
        return result

    def statement(self) -> Statement:
        kind, word = self.next()
        if kind != 'name':
            raise BodyError(f'a statement cannot start with {word!r}')
        type_name = None
        if word in self.type_names or word == 'bool':
            type_name = word
            kind, word = self.next()
            if kind != 'name':
                raise BodyError(f'expected a variable name after {type_name}, found {word!r}')
        operator = self.next()[1]
        if type_name is not None and operator != '=':
            raise BodyError(f'a declaration needs "=", found {operator!r}')
        if operator == '*=':
            raise BodyError(f'{word} *= ...: multiply with mul_rn(a, b), never fused into an FMA')
        if operator not in ('=', '+=', '-=', '/='):
            raise BodyError(f'unsupported statement: {word} {operator} ...')
        expr = self.expression()
        self.expect(';')
        op = None if operator == '=' else operator[0]
        return Statement(word, expr, type_name, op)

    def expression(self) -> Any:
        condition = self.binary(0)
        token = self.peek()
        if token is not None and token[1] == '?':
            self.next()
            when_true = self.expression()
            self.expect(':')
            when_false = self.expression()
            return ('?:', condition, when_true, when_false)
        return condition

    # '*' is parsed only to be refused with a message.
    _LEVELS: tuple[tuple[str, ...], ...] = (
        ('||',), ('&&',), ('==', '!='), ('<', '>', '<=', '>='), ('+', '-'), ('*', '/'))

    def binary(self, level: int) -> Any:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while True:
            token = self.peek()
            if token is None or token[0] != 'op' or token[1] not in self._LEVELS[level]:
                return left
            if token[1] == '*':
                raise BodyError('a * b: multiply with mul_rn(a, b), which NVRTC never fuses '
                                'into an FMA')
            self.next()
            left = ('binary', token[1], left, self.binary(level + 1))

    def unary(self) -> Any:
        token = self.next()
        if token[1] in ('-', '!'):
            return ('unary', token[1], self.unary())
        if token[1] == '(':
            following = self.peek()
            after = self.peek(1)
            if (following is not None and following[1] in self.type_names
                    and after is not None and after[1] == ')'):
                self.next()
                self.next()
                return ('cast', following[1], self.unary())
            inner = self.expression()
            self.expect(')')
            return inner
        kind, word = token
        if kind == 'number':
            return ('number', word)
        if kind != 'name':
            raise BodyError(f'unexpected {word!r} in an expression')
        following = self.peek()
        if following is not None and following[1] == '(':
            if word not in FUNCTIONS:
                raise BodyError(f'unsupported function {word}()')
            self.next()
            arguments = [self.expression()]
            while self.peek() is not None and self.peek()[1] == ',':
                self.next()
                arguments.append(self.expression())
            self.expect(')')
            if len(arguments) != (2 if word == 'mul_rn' else 1):
                raise BodyError(f'{word}() takes {2 if word == "mul_rn" else 1} argument(s)')
            return ('call', word, tuple(arguments))
        return ('name', word)


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------

def parse_params(text: str) -> list[tuple[str, str]]:
    """Returns ``(type, name)`` for each parameter of a CuPy parameter list."""
    params = []
    for param in text.split(','):
        words = param.split()
        if len(words) != 2:
            raise BodyError(f'parameter {param!r} is not "TYPE NAME"')
        params.append((words[0], words[1]))
    return params


def _param_dtype(type_name: str, types: Mapping[str, numpy.dtype]) -> numpy.dtype | None:
    if len(type_name) == 1:
        return types.get(type_name)
    try:
        dtype = numpy.dtype(type_name)
    except TypeError as error:
        raise BodyError(f'unknown parameter type {type_name!r}') from error
    if dtype not in FLOATS:
        raise BodyError(f'unsupported parameter type {type_name!r}')
    return dtype


# ---------------------------------------------------------------------------
# The program
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class _Value:
    dtype: numpy.dtype
    array: Any


class Program:
    """A kernel body checked against its parameters, ready to run on NumPy arrays.

    Args:
        in_params: The input parameter list (``'T x, W eps'``).
        out_params: The output parameter list.
        body: The C statements.
        typedefs: Type names the body may use besides the one-letter types of
            the parameters (such as ``W`` from a preamble ``typedef``).
    """

    def __init__(self, in_params: str, out_params: str, body: str,
                 typedefs: tuple[str, ...] = ()) -> None:
        self.inputs = parse_params(in_params)
        self.outputs = parse_params(out_params)
        names = [name for _, name in self.inputs + self.outputs]
        if len(set(names)) != len(names):
            raise BodyError(f'a parameter name repeats: {names}')
        for name in names:
            _check_name(name)
        placeholders = {t for t, _ in self.inputs + self.outputs if len(t) == 1}
        self.type_names = frozenset(placeholders | set(typedefs))
        self.statements = _Parser(body, self.type_names).statements()
        self.locals: dict[str, str] = {}
        self.reads: set[str] = set()
        self.types: dict[str, numpy.dtype] = {}
        self._check_names()

    def _check_names(self) -> None:
        params = {name for _, name in self.inputs + self.outputs}
        inputs = {name for _, name in self.inputs}
        written: set[str] = set()
        for statement in self.statements:
            self._collect_reads(statement.expr)
            if statement.op is not None:
                self.reads.add(statement.target)
            if statement.type is not None:
                _check_name(statement.target)
                if statement.target in self.type_names:
                    raise BodyError(f'{statement.target} is a type name')
                if statement.target in params or statement.target in self.locals:
                    raise BodyError(f'{statement.target} is declared twice (or shadows a '
                                    'parameter)')
                self.locals[statement.target] = statement.type
            elif statement.target in inputs:
                raise BodyError(f'{statement.target} is an input parameter: it is const')
            elif statement.target not in params and statement.target not in self.locals:
                raise BodyError(f'{statement.target} is assigned but never declared')
            written.add(statement.target)
        unknown = self.reads - params - set(self.locals)
        if unknown:
            raise BodyError(f'the body reads undeclared names: {sorted(unknown)}')
        unwritten = {name for _, name in self.outputs} - written
        if unwritten:
            raise BodyError(f'the body never writes the outputs {sorted(unwritten)}')

    def _collect_reads(self, node: Any) -> None:
        kind = node[0]
        if kind == 'name':
            self.reads.add(node[1])
        elif kind in ('binary',):
            self._collect_reads(node[2])
            self._collect_reads(node[3])
        elif kind in ('unary', 'cast'):
            self._collect_reads(node[2])
        elif kind == 'call':
            for argument in node[2]:
                self._collect_reads(argument)
        elif kind == '?:':
            for child in node[1:]:
                self._collect_reads(child)

    def run(self, inputs: tuple[Any, ...], outputs: tuple[Any, ...] = (),
            types: Mapping[str, Any] | None = None) -> tuple[numpy.ndarray, ...]:
        """Runs the body element-wise, as ``kernel(*inputs, *outputs)`` would.

        Args:
            inputs: One value per input parameter: NumPy arrays, or NumPy
                scalars of exactly the parameter's dtype.
            outputs: One array per output parameter, updated in place; or
                empty, to allocate them (their first values are undefined).
            types: Dtypes of type names that no array decides (``W``).

        Returns:
            The output arrays.
        """
        if len(inputs) != len(self.inputs) or len(outputs) not in (0, len(self.outputs)):
            raise BodyError(f'expected {len(self.inputs)} inputs and 0 or '
                            f'{len(self.outputs)} outputs, got {len(inputs)} and '
                            f'{len(outputs)}')
        bound = {name: numpy.dtype(dtype) for name, dtype in (types or {}).items()}
        self._bind(bound, self.outputs, outputs)
        self._bind(bound, self.inputs, inputs)
        arrays = [a for a in (*inputs, *outputs) if isinstance(a, numpy.ndarray)]
        if not arrays:
            raise BodyError('the loop size is undecided: no argument is an array')
        try:
            shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError as error:
            raise BodyError(f'the arguments do not broadcast together: {error}') from None
        for array in outputs:
            if array.shape != shape:
                raise BodyError(f'an output has shape {array.shape}, not {shape}')
        env: dict[str, _Value | None] = {}
        for (type_name, name), value in zip(self.inputs, inputs):
            env[name] = _Value(_param_dtype(type_name, bound), numpy.asarray(value))
        for index, (type_name, name) in enumerate(self.outputs):
            dtype = _param_dtype(type_name, bound)
            env[name] = _Value(dtype, outputs[index].copy()) if outputs else None
        self.types = bound
        with numpy.errstate(all='ignore'):
            for statement in self.statements:
                self._execute(statement, env)
        results = []
        for index, (_, name) in enumerate(self.outputs):
            value = env[name]
            assert value is not None
            result = numpy.broadcast_to(value.array, shape)
            if outputs:
                outputs[index][...] = result
                results.append(outputs[index])
            else:
                results.append(numpy.array(result, dtype=value.dtype))
        return tuple(results)

    def _bind(self, bound: dict[str, numpy.dtype], params: list[tuple[str, str]],
              values: tuple[Any, ...]) -> None:
        for (type_name, name), value in zip(params, values):
            if isinstance(value, numpy.ndarray):
                dtype = value.dtype
                if len(type_name) == 1:
                    known = bound.setdefault(type_name, dtype)
                    if known != dtype:
                        raise BodyError(f'{name} is {dtype} but {type_name} is {known}')
                elif _param_dtype(type_name, bound) != dtype:
                    raise BodyError(f'{name} is {dtype}, not {type_name}')
        for (type_name, name), value in zip(params, values):
            dtype = _param_dtype(type_name, bound)
            if dtype is None:
                raise BodyError(f'cannot determine the type {type_name} of {name}')
            if dtype not in FLOATS:
                raise BodyError(f'{name} has the unsupported dtype {dtype}')
            if not isinstance(value, numpy.ndarray):
                if not isinstance(value, numpy.generic) or value.dtype != dtype:
                    raise BodyError(f'scalar {name} must be a numpy {dtype} scalar; got '
                                    f'{value!r} ({type(value).__name__})')

    # -- statements ---------------------------------------------------------

    def _execute(self, statement: Statement, env: dict[str, _Value | None]) -> None:
        value = self._evaluate(statement.expr, env)
        if statement.type is not None:
            target_dtype = self._type(statement.type)
        else:
            current = env.get(statement.target)
            if statement.op is not None:
                if current is None:
                    raise BodyError(f'{statement.target} is read before it has a value')
                value = _arithmetic(statement.op, current, value)
            target_dtype = self._declared_dtype(statement.target)
        env[statement.target] = _store(statement.target, target_dtype, value)

    def _declared_dtype(self, name: str) -> numpy.dtype:
        if name in self.locals:
            return self._type(self.locals[name])
        for type_name, param in self.outputs:
            if param == name:
                dtype = _param_dtype(type_name, self.types)
                assert dtype is not None
                return dtype
        raise BodyError(f'{name} is not writable')

    def _type(self, type_name: str) -> numpy.dtype:
        if type_name == 'bool':
            return BOOL
        if type_name not in self.types:
            raise BodyError(f'the type {type_name} is not bound')
        return self.types[type_name]

    # -- expressions ----------------------------------------------------------

    def _evaluate(self, node: Any, env: dict[str, _Value | None]) -> _Value:
        kind = node[0]
        if kind == 'name':
            value = env.get(node[1])
            if value is None:
                raise BodyError(f'{node[1]} is read before it has a value')
            return value
        if kind == 'number':
            raise BodyError(f'the literal {node[1]} must be cast to a type, as in (T){node[1]}')
        if kind == 'cast':
            return self._cast(self._type(node[1]), node[2], env)
        if kind == 'call':
            arguments = [self._evaluate(argument, env) for argument in node[2]]
            if any(argument.dtype != arguments[0].dtype for argument in arguments):
                raise BodyError(f'mixed types in {node[1]}(): '
                                f'{[str(a.dtype) for a in arguments]} (cast first)')
            compute = _compute_dtype(arguments[0], f'{node[1]}()')
            result = FUNCTIONS[node[1]](*(a.array.astype(compute) for a in arguments))
            return _Value(compute, numpy.asarray(result, dtype=compute))
        if kind == 'unary':
            operand = self._evaluate(node[2], env)
            if node[1] == '!':
                if operand.dtype != BOOL:
                    raise BodyError('! takes a bool')
                return _Value(BOOL, numpy.logical_not(operand.array))
            compute = _compute_dtype(operand, 'unary -')
            return _Value(compute, numpy.negative(operand.array.astype(compute)))
        if kind == 'binary':
            left = self._evaluate(node[2], env)
            right = self._evaluate(node[3], env)
            return _binary(node[1], left, right)
        if kind == '?:':
            condition = self._evaluate(node[1], env)
            when_true = self._evaluate(node[2], env)
            when_false = self._evaluate(node[3], env)
            if condition.dtype != BOOL:
                raise BodyError('the condition of ?: must be a bool')
            if when_true.dtype != when_false.dtype:
                raise BodyError(f'the branches of ?: differ in type: {when_true.dtype} and '
                                f'{when_false.dtype}')
            result = numpy.where(condition.array, when_true.array, when_false.array)
            return _Value(when_true.dtype, result.astype(when_true.dtype))
        raise BodyError(f'unsupported expression {node!r}')

    def _cast(self, dtype: numpy.dtype, operand: Any, env: dict[str, _Value | None]) -> _Value:
        if operand[0] == 'number':
            value = float(operand[1])
            converted = numpy.asarray(value).astype(dtype)
            if float(converted) != value:
                raise BodyError(f'({dtype}){operand[1]} is not exact')
            return _Value(dtype, converted)
        value = self._evaluate(operand, env)
        if value.dtype not in FLOATS:
            raise BodyError(f'cannot cast {value.dtype} to {dtype}')
        if value.dtype == FLOAT64 and dtype == FLOAT16:
            raise BodyError('a cast from float64 to float16 is not supported')
        return _Value(dtype, value.array.astype(dtype))


def _check_name(name: str) -> None:
    if name in RESERVED or name.startswith('_'):
        raise BodyError(f'{name!r} is reserved (a keyword, type, math function or loop name)')


def _compute_dtype(value: _Value, what: str) -> numpy.dtype:
    if value.dtype not in FLOATS:
        raise BodyError(f'{what} takes a floating-point value, not {value.dtype}')
    return FLOAT32 if value.dtype == FLOAT16 else value.dtype


def _arithmetic(op: str, left: _Value, right: _Value) -> _Value:
    if left.dtype != right.dtype:
        raise BodyError(f'mixed types in {op}: {left.dtype} and {right.dtype} (cast first)')
    compute = _compute_dtype(left, op)
    result = _ARITHMETIC[op](left.array.astype(compute), right.array.astype(compute))
    return _Value(compute, numpy.asarray(result, dtype=compute))


def _binary(op: str, left: _Value, right: _Value) -> _Value:
    if op in _ARITHMETIC:
        return _arithmetic(op, left, right)
    if op in _LOGICAL:
        if left.dtype != BOOL or right.dtype != BOOL:
            raise BodyError(f'{op} takes bools')
        return _Value(BOOL, _LOGICAL[op](left.array, right.array))
    if left.dtype != right.dtype:
        raise BodyError(f'mixed types in {op}: {left.dtype} and {right.dtype} (cast first)')
    compute = _compute_dtype(left, op)
    return _Value(BOOL, _COMPARISONS[op](left.array.astype(compute),
                                         right.array.astype(compute)))


def _store(name: str, dtype: numpy.dtype, value: _Value) -> _Value:
    if value.dtype != dtype and not (dtype == FLOAT16 and value.dtype == FLOAT32):
        raise BodyError(f'{name} is {dtype}; assigning a {value.dtype} value needs a cast')
    return _Value(dtype, numpy.asarray(value.array).astype(dtype))


def run_launch(launch: Any) -> Any:
    """Runs a :class:`~catena_cuda.kernels._elementwise.Launch` like ``_elementwise.run``.

    Returns:
        The single output array, or a tuple of them, as CuPy returns.
    """
    spec = launch.spec
    typedefs = ('W',) if launch.work is not None else ()
    types = {'W': launch.work} if launch.work is not None else None
    program = Program(spec.in_params, spec.out_params, spec.body, typedefs)
    results = program.run(launch.inputs, launch.outputs, types)
    return results[0] if len(results) == 1 else results
