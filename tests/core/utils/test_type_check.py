"""Tests of catena.utils.type_check: light mode, full-mode messages and diagnose()."""

from __future__ import annotations

import pickle
import threading

import numpy
import pytest

from catena.utils import type_check


class FakeArray:
    """An array of another library (as CuPy's would be), for same_types."""

    __module__ = 'fakelib.core'

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = numpy.dtype(dtype)
        self.ndim = len(shape)


def _linear_check(in_types):
    type_check._argname(in_types, ('x', 'W'))
    x_type, w_type = in_types
    type_check.expect(
        x_type.dtype.kind == 'f',
        x_type.ndim >= 2,
        x_type.shape[1] == w_type.shape[1],
    )


def _full(*arrays, names=None, accept_none=False):
    types = type_check.get_types(arrays, 'in_types', accept_none)
    if names is not None:
        type_check._argname(types, names)
    return types


def _expect_failure(*conditions):
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(*conditions)
    return info.value


def _apply_like(check, in_data, label='Linear', phase='Forward'):
    """What FunctionNode.apply does: light check, then diagnose on failure."""
    try:
        check(type_check.LightTypeInfoTuple(in_data))
    except Exception as error:
        type_check.diagnose(check, in_data, label, phase, error)


# Light mode ----------------------------------------------------------------


def test_light_expect_passes_with_true_values():
    assert type_check.expect(True, numpy.bool_(True), 1 == 1) is None


@pytest.mark.parametrize('conditions', [(False,), (True, False), (numpy.bool_(False), True)])
def test_light_expect_raises_with_empty_texts(conditions):
    error = _expect_failure(*conditions)
    assert (error.expect, error.actual) == ('', '')


def test_light_type_info_tuple_holds_the_arrays():
    x, w = numpy.zeros((2, 3), numpy.float32), numpy.zeros((4, 3), numpy.float32)
    types = type_check.LightTypeInfoTuple((x, w))
    assert isinstance(types, tuple)
    assert types[0] is x and types[1] is w
    assert types.size() == 2
    assert types.name == 'in_types'
    assert type_check.get_light_types([x]) == (x,)


def test_light_check_passes_and_fails_with_plain_values():
    x, w = numpy.zeros((2, 3), numpy.float32), numpy.zeros((4, 3), numpy.float32)
    _linear_check(type_check.LightTypeInfoTuple((x, w)))
    bad = numpy.zeros((2, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType):
        _linear_check(type_check.LightTypeInfoTuple((x, bad)))


def test_light_argname_leaves_arrays_alone():
    x = numpy.zeros((2, 3))
    types = type_check.LightTypeInfoTuple((x,))
    type_check._argname(types, ('x', 'W'))  # no length check in light mode
    type_check._argname(types[:1], ('x',))
    assert types[0] is x and not hasattr(x, 'name')


def test_light_helpers_return_plain_values():
    assert type_check.in_light_mode()
    assert type_check.make_variable(3, 'in_size') == 3
    assert type_check.eval(5) == 5
    assert type_check.eval((1, 2)) == (1, 2)
    assert type_check.prod((2, 3, 4)) == 24
    assert type_check.prod(()) == 1


def test_light_same_types_compares_array_libraries_not_dtypes():
    x = numpy.zeros(3, numpy.int32)
    w = numpy.zeros(3, numpy.float32)
    assert type_check.same_types(x, w) is True
    assert type_check.same_types(x, numpy.float32(1)) is True
    assert type_check.same_types(x, FakeArray((3,), numpy.float32)) is False


@pytest.mark.parametrize('shapes', [
    ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), (2, 1)), ((5, 1, 3), (4, 1)), ((), (3,)),
    ((2, 0), (1,)),
])
def test_light_broadcast_shapes_pass(shapes):
    type_check.expect_broadcast_shapes(*shapes)
    numpy.broadcast_shapes(*shapes)  # the reference agrees


@pytest.mark.parametrize('shapes', [((2, 3), (4, 3)), ((2, 3), (2,)), ((5, 2, 3), (4, 1))])
def test_light_broadcast_shapes_fail(shapes):
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect_broadcast_shapes(*shapes)
    with pytest.raises(ValueError):
        numpy.broadcast_shapes(*shapes)
    assert info.value.actual == ', '.join(str(s) for s in shapes)


def test_light_broadcast_shapes_none():
    type_check.expect_broadcast_shapes((2, 3), None, allow_none=True)
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect_broadcast_shapes((2, 3), None)
    assert info.value.expect == 'shapes, not None: (2, 3), None'


# Full mode: expressions and messages ----------------------------------------


def test_full_types_are_named_expressions():
    x = numpy.zeros((2, 3), numpy.float32)
    types = _full(x, numpy.zeros(4, numpy.int8))
    assert isinstance(types, type_check.TypeInfoTuple)
    assert [str(t) for t in types] == ['in_types[0]', 'in_types[1]']
    info = type_check.eval(types[0])
    assert isinstance(info, type_check.TypeInfo)
    assert (info.shape, info.dtype, info.ndim, info.size) == ((2, 3), x.dtype, 2, 6)
    assert type_check.eval(types[1].shape) == (4,)
    assert str(types[1].dtype.kind) == 'in_types[1].dtype.kind'


def test_full_dtype_kind_message():
    x_type, = _full(numpy.arange(3), names=('x',))
    error = _expect_failure(x_type.dtype.kind == 'f')
    assert error.expect == 'x.dtype.kind == f'
    assert error.actual == 'i != f'
    assert str(error) == '\nExpect: x.dtype.kind == f\nActual: i != f\n'


def test_full_ndim_message():
    x_type, = _full(numpy.zeros(3), names=('x',))
    error = _expect_failure(x_type.ndim >= 2)
    assert (error.expect, error.actual) == ('x.ndim >= 2', '1 < 2')


def test_full_shape_equality_message():
    x_type, w_type = _full(numpy.zeros((2, 3)), numpy.zeros((5, 4)), names=('x', 'W'))
    error = _expect_failure(x_type.shape[1] == w_type.shape[1])
    assert (error.expect, error.actual) == ('x.shape[1] == W.shape[1]', '3 != 4')


def test_full_expect_reports_the_first_failing_condition():
    x_type, w_type = _full(numpy.zeros((2, 3)), numpy.zeros((5, 4)), names=('x', 'W'))
    error = _expect_failure(x_type.ndim == 2, w_type.ndim == 2, x_type.shape[0] != 2)
    assert (error.expect, error.actual) == ('x.shape[0] != 2', '2 == 2')


def test_full_arithmetic_message():
    x_type, y_type = _full(numpy.zeros((3, 2)), numpy.zeros((1, 2)), names=('x', 'y'))
    error = _expect_failure(x_type.shape[0] == y_type.shape[0] * 4)
    assert (error.expect, error.actual) == ('x.shape[0] == y.shape[0] * 4', '3 != 4')


def test_full_operators_render_with_minimal_parentheses():
    a, b = _full(numpy.zeros((2, 3)), numpy.zeros((4,)), names=('a', 'b'))
    rendered = {
        'a.ndim + b.ndim * 2': a.ndim + b.ndim * 2,
        '(a.ndim + b.ndim) * 2': (a.ndim + b.ndim) * 2,
        'a.ndim - (b.ndim - 1)': a.ndim - (b.ndim - 1),
        'a.ndim - b.ndim - 1': a.ndim - b.ndim - 1,
        '4 * b.shape[0] // 2 % 3': 4 * b.shape[0] // 2 % 3,
        'a.size / b.size': a.size / b.size,
        '-a.ndim ** 2': -a.ndim ** 2,
        '(-a.ndim) ** 2': (-a.ndim) ** 2,
        'a.ndim ** b.ndim ** 2': a.ndim ** b.ndim ** 2,
        '(a.ndim ** b.ndim) ** 2': (a.ndim ** b.ndim) ** 2,
        '~a.ndim & 1 | b.ndim ^ 2': ~a.ndim & 1 | b.ndim ^ 2,
        '(a.ndim == 2) | (b.ndim == 3)': (a.ndim == 2) | (b.ndim == 3),
        'a.shape[1:]': a.shape[1:],
        'a.shape[::2]': a.shape[::2],
        'a.shape[:-1]': a.shape[:-1],
        'a.shape[a.ndim - 1]': a.shape[a.ndim - 1],
        'prod(a.shape)': type_check.prod(a.shape),
        'a.ndim << 1 >> b.ndim': a.ndim << 1 >> b.ndim,
    }
    assert {text: str(expr) for text, expr in rendered.items()} == {t: t for t in rendered}


def test_full_operators_evaluate_like_python():
    a, b = _full(numpy.zeros((2, 3)), numpy.zeros((4,)))
    cases = [
        (a.ndim + b.ndim * 2, 4), (-a.ndim ** 2, -4), (a.ndim ** b.ndim ** 2, 2),
        (4 * b.shape[0] // 3 % 3, 2), (a.size / b.size, 1.5), (+a.ndim - 5, -3),
        (~a.ndim & 7 | 8 ^ 1, 13), (a.shape[1:], (3,)), (type_check.prod(a.shape), 6),
        (2 ** a.ndim, 4), (10 - a.ndim, 8), (7 % a.ndim, 1), (8 // a.ndim, 4), (6 / a.ndim, 3),
        (1 << a.ndim >> 1, 2), (3 & a.ndim, 2), (1 | a.ndim, 3), (3 ^ a.ndim, 1),
        (type_check.prod((a.shape[0], 5)), 10),
    ]
    assert [type_check.eval(expr) for expr, _ in cases] == [value for _, value in cases]


def test_full_reflected_comparisons_and_numpy_operands_build_expressions():
    x_type, = _full(numpy.zeros((2, 3), numpy.float32), names=('x',))
    assert str(2 <= x_type.ndim) == 'x.ndim >= 2'
    assert str(numpy.int64(2) == x_type.ndim) == 'x.ndim == 2'
    error = _expect_failure(numpy.int64(3) == x_type.ndim)
    assert (error.expect, error.actual) == ('x.ndim == 3', '2 != 3')


def test_full_dtype_comparison_message():
    x_type, = _full(numpy.zeros(3, numpy.float32), names=('x',))
    error = _expect_failure(x_type.dtype == numpy.float64)
    assert (error.expect, error.actual) == ("x.dtype == <class 'numpy.float64'>",
                                            "float32 != <class 'numpy.float64'>")
    type_check.expect(x_type.dtype == numpy.float32, x_type.dtype.kind == 'f')


def test_full_tuple_operand_holding_expressions():
    x_type, w_type = _full(numpy.zeros((2, 3)), numpy.zeros((4, 5)), names=('x', 'W'))
    error = _expect_failure(x_type.shape == (w_type.shape[0], 3))
    assert (error.expect, error.actual) == ('x.shape == (W.shape[0], 3)', '(2, 3) != (4, 3)')


def test_argname_names_and_default_names():
    types = _full(numpy.zeros(1), numpy.zeros(2), numpy.zeros(3))
    type_check._argname(types, ('x', 'W'))
    assert [str(t.shape) for t in types] == ['x.shape', 'W.shape', 'in_types[2].shape']
    type_check._argname(types[2:], ('b',))
    assert str(types[2]) == 'b'


def test_argname_with_fewer_types_than_names_raises_in_full_mode():
    types = _full(numpy.zeros(1))
    with pytest.raises(type_check.InvalidType) as info:
        type_check._argname(types, ('x', 'W'))
    assert (info.value.expect, info.value.actual) == ('2 argument(s) (x, W)', '1 argument(s)')


def test_full_size_of_in_types():
    types = _full(numpy.zeros(1), numpy.zeros(1), numpy.zeros(1))
    error = _expect_failure(types.size() == 2)
    assert (error.expect, error.actual) == ('in_types.size() == 2', '3 != 2')


def test_make_variable_names_values_in_full_mode():
    x_type, = _full(numpy.zeros((3, 2)), names=('x',))
    with type_check._full_mode:
        assert not type_check.in_light_mode()
        in_size = type_check.make_variable(4, 'in_size')
    assert isinstance(in_size, type_check.Variable)
    error = _expect_failure(x_type.shape[0] == in_size)
    assert (error.expect, error.actual) == ('x.shape[0] == in_size', '3 != 4')


def test_call_of_a_variable():
    x_type, = _full(numpy.zeros((3, 4)), names=('x',))
    total = type_check.Variable(sum, 'sum')
    error = _expect_failure(total(x_type.shape) == 10)
    assert (error.expect, error.actual) == ('sum(x.shape) == 10', '7 != 10')


def test_expr_bool_raises_and_names_expect():
    x_type, = _full(numpy.zeros(3))
    with pytest.raises(RuntimeError, match=r'type_check\.expect'):
        bool(x_type.ndim == 1)
    with pytest.raises(RuntimeError, match=r'type_check\.expect'):
        x_type.ndim == 1 and x_type.ndim == 1
    with pytest.raises(RuntimeError, match=r'type_check\.expect'):
        if x_type.ndim:
            pass
    with pytest.raises(RuntimeError, match=r'type_check\.expect'):
        _ = 2 in x_type.shape


def test_full_shape_unpacks_and_has_a_length():
    x_type, = _full(numpy.zeros((2, 3)), names=('x',))
    n, c = x_type.shape
    assert (str(n), str(c), len(x_type.shape)) == ('x.shape[0]', 'x.shape[1]', 2)
    assert type_check.eval(c) == 3


def test_full_non_comparison_expression():
    x_type, = _full(numpy.zeros(3), names=('x',))
    error = _expect_failure((x_type.ndim == 2) | (x_type.ndim == 3))
    assert (error.expect, error.actual) == ('(x.ndim == 2) | (x.ndim == 3)', 'False')
    type_check.expect((x_type.ndim == 1) | (x_type.ndim == 3))


def test_full_mode_plain_false_condition():
    x_type, = _full(numpy.zeros(3))
    error = _expect_failure(x_type.ndim == 1, False)
    assert (error.expect, error.actual) == ('True', 'False')


def test_failure_while_evaluating_an_expression():
    x_type, = _full(numpy.zeros((2, 3)), names=('x',))
    error = _expect_failure(x_type.shape[3] == 4)
    assert error.expect == 'x.shape[3] == 4'
    assert error.actual.startswith('x.shape[3]: IndexError: ')
    assert error.actual.endswith(' (with x.shape = (2, 3))')
    assert isinstance(error.__cause__, IndexError)
    with pytest.raises(type_check.InvalidType) as info:
        type_check.eval(x_type.shape[3] + 1)
    assert info.value.expect == 'x.shape[3] + 1'
    assert info.value.actual.startswith('x.shape[3]: IndexError: ')


def test_failure_of_an_attribute_and_of_an_operator():
    x_type, = _full(numpy.zeros(2), names=('x',))
    error = _expect_failure(x_type.foo == 1)
    assert error.actual.startswith("x.foo: AttributeError: ")
    assert error.actual.endswith(' (with x = TypeInfo(shape=(2,), dtype=float64))')
    error = _expect_failure(x_type.ndim // 0 == 1)
    assert error.actual.startswith('x.ndim // 0: ZeroDivisionError: ')


def test_full_same_types():
    x = numpy.zeros(3)
    types = _full(x, numpy.zeros(3, numpy.int32), names=('x', 'W'))
    type_check.expect(type_check.same_types(*types))
    assert type_check.eval(type_check.same_types(*types)) is True
    types = _full(x, FakeArray((3,), numpy.float32), names=('x', 'W'))
    error = _expect_failure(type_check.same_types(*types))
    assert (error.expect, error.actual) == ('same_types(x, W)',
                                            "x: <class 'numpy.ndarray'>, W: "
                                            "<class 'fakelib.core.FakeArray'>")


def test_full_broadcast_shapes():
    x_type, b_type = _full(numpy.zeros((2, 3)), numpy.zeros(4), names=('x', 'b'))
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect_broadcast_shapes(x_type.shape, b_type.shape)
    assert info.value.expect == 'broadcastable shapes: x.shape, b.shape'
    assert info.value.actual == 'x.shape = (2, 3), b.shape = (4,)'
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect_broadcast_shapes(x_type.shape, (5, 1))
    assert info.value.actual == 'x.shape = (2, 3), (5, 1)'
    type_check.expect_broadcast_shapes(x_type.shape, (1, 3), x_type.shape[1:])


# None inputs ---------------------------------------------------------------


def test_none_input_with_accept_none():
    x_type, g_type = _full(numpy.zeros((2, 3), numpy.float32), None, names=('x', 'gy'),
                           accept_none=True)
    info = type_check.eval(g_type)
    assert (info.shape, info.dtype, info.ndim) == ((), None, 0)
    error = _expect_failure(g_type.dtype == x_type.dtype)
    assert (error.expect, error.actual) == ('gy.dtype == x.dtype', 'None != float32')
    type_check.expect(g_type.ndim == 0)


def test_none_input_without_accept_none():
    with pytest.raises(type_check.InvalidType) as info:
        type_check.get_types((numpy.zeros(1), None), 'in_types', False)
    assert (info.value.expect, info.value.actual) == ('in_types[1] is an array',
                                                      "in_types[1] is <class 'NoneType'>")


def test_get_types_with_shapes():
    types = type_check.get_types((numpy.zeros(6), numpy.zeros(2)), 'in_types', False,
                                 shapes=((2, 3), None))
    assert [type_check.eval(t.shape) for t in types] == [(2, 3), (2,)]


# diagnose ------------------------------------------------------------------


def test_diagnose_message_with_label_and_phase():
    x, w = numpy.arange(6).reshape(2, 3), numpy.zeros((4, 3))
    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(_linear_check, (x, w))
    assert str(info.value) == ('Invalid operation is performed in: Linear (Forward)\n'
                               '\nExpect: x.dtype.kind == f\nActual: i != f\n')
    assert (info.value.expect, info.value.actual) == ('x.dtype.kind == f', 'i != f')
    assert info.value.__suppress_context__


def test_diagnose_backward_phase_and_shape_message():
    x, w = numpy.zeros((2, 3)), numpy.zeros((4, 5))
    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(_linear_check, (x, w), 'LinearGrad', 'Backward')
    assert str(info.value).startswith(
        'Invalid operation is performed in: LinearGrad (Backward)\n')
    assert (info.value.expect, info.value.actual) == ('x.shape[1] == W.shape[1]', '3 != 5')


def test_diagnose_failure_inside_an_expression():
    def check(in_types):
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.shape[3] == 4)

    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(check, (numpy.zeros((2, 3)),), 'Pad')
    message = str(info.value)
    assert message.startswith('Invalid operation is performed in: Pad (Forward)\n')
    assert 'Expect: x.shape[3] == 4\nActual: x.shape[3]: IndexError: ' in message
    assert isinstance(info.value.__cause__, IndexError)


def test_diagnose_wraps_other_errors_of_the_check():
    def check(in_types):
        x_type, w_type = in_types  # wrong number of inputs
        type_check.expect(x_type.ndim == w_type.ndim)

    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(check, (numpy.zeros(2),), 'Foo')
    assert str(info.value).startswith('Invalid operation is performed in: Foo (Forward)\n')
    assert info.value.expect.endswith('check to complete')
    assert info.value.actual.startswith('ValueError: ')
    assert isinstance(info.value.__cause__, ValueError)


def test_diagnose_labels_errors_of_get_types():
    with pytest.raises(type_check.InvalidType) as info:
        type_check.diagnose(_linear_check, ([1, 2], numpy.zeros(2)), 'Linear')
    assert str(info.value) == ('Invalid operation is performed in: Linear (Forward)\n'
                               '\nExpect: x (in_types[0]) is an array\n'
                               "Actual: x is <class 'list'>\n")


def test_diagnose_keeps_the_default_name_of_an_input_the_check_does_not_name():
    def check(in_types):
        type_check.expect(in_types[0].ndim == 1)

    with pytest.raises(type_check.InvalidType) as info:
        type_check.diagnose(check, (None,), 'Foo')
    assert (info.value.expect, info.value.actual) == (
        'in_types[0] is an array', "in_types[0] is <class 'NoneType'>")


def test_diagnose_keeps_a_custom_message():
    def check(in_types):
        raise type_check.InvalidType('a', 'b', 'custom message')

    with pytest.raises(type_check.InvalidType) as info:
        type_check.diagnose(check, (numpy.zeros(1),), 'Foo')
    assert str(info.value) == 'Invalid operation is performed in: Foo (Forward)\n\ncustom message'


def test_diagnose_reraises_light_error_when_full_mode_passes():
    light_error = KeyError('light only')
    with pytest.raises(KeyError) as info:
        type_check.diagnose(_linear_check, (numpy.zeros((2, 3)), numpy.zeros((4, 3))), 'Linear',
                            'Forward', light_error)
    assert info.value is light_error


def test_diagnose_reports_a_check_that_depends_on_the_mode():
    def check(in_types):
        type_check.expect(not type_check.in_light_mode())

    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(check, (numpy.zeros(1),), 'Odd')
    message = str(info.value)
    assert message.startswith('Invalid operation is performed in: Odd (Forward)\n')
    assert 'failed in light mode but passed in full mode' in message
    assert isinstance(info.value.__cause__, type_check.InvalidType)


def test_diagnose_returns_when_everything_passes_and_restores_the_mode():
    arrays = (numpy.zeros((2, 3)), numpy.zeros((4, 3)))
    assert type_check.diagnose(_linear_check, arrays, 'Linear') is None
    assert type_check.in_light_mode()
    with pytest.raises(type_check.InvalidType):
        type_check.diagnose(_linear_check, (numpy.zeros(3), numpy.zeros(3)), 'Linear')
    assert type_check.in_light_mode()


def test_diagnose_accept_none():
    def check(in_types):
        type_check._argname(in_types, ('x', 'gy'))
        x_type, gy_type = in_types
        type_check.expect(gy_type.dtype == x_type.dtype)

    with pytest.raises(type_check.InvalidType) as info:
        type_check.diagnose(check, (numpy.zeros(2, numpy.float32), None), 'F', 'Backward',
                            accept_none=True)
    assert (info.value.expect, info.value.actual) == ('gy.dtype == x.dtype', 'None != float32')


def test_diagnose_uses_make_variable_names():
    in_size = 4

    def check(in_types):
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.shape[1] == type_check.make_variable(in_size, 'in_size'))

    with pytest.raises(type_check.InvalidType) as info:
        _apply_like(check, (numpy.zeros((2, 3)),), 'Linear')
    assert (info.value.expect, info.value.actual) == ('x.shape[1] == in_size', '3 != 4')


# Mode and errors -------------------------------------------------------------


def test_modes_nest_and_are_thread_local():
    seen = []
    with type_check._full_mode:
        thread = threading.Thread(target=lambda: seen.append(type_check.in_light_mode()))
        thread.start()
        thread.join()
        with type_check.light_mode:
            assert type_check.in_light_mode() and bool(type_check.light_mode)
        assert not type_check.in_light_mode() and not type_check.light_mode
    assert seen == [True]
    assert type_check.in_light_mode()


def test_invalid_type_fields_and_pickling():
    error = type_check.InvalidType('x.ndim == 2', '3 != 2')
    assert str(error) == '\nExpect: x.ndim == 2\nActual: 3 != 2\n'
    assert error.msg is None
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.expect, copy.actual, str(copy)) == (
        type_check.InvalidType, error.expect, error.actual, str(error))
    custom = type_check.InvalidType('a', 'b', msg='whole message')
    assert str(custom) == 'whole message'
    assert (custom.expect, custom.actual) == ('a', 'b')


# Chainer's finer points: printed priorities, attribute names, errors of Expr.eval.


def test_priorities_follow_python_and_parenthesize_as_chainer():
    x, y = type_check.Variable(1, 'x'), type_check.Variable(1, 'y')
    assert (x | y).priority < (x ^ y).priority < (x & y).priority < (x << y).priority \
        < (x + y).priority < (x * y).priority < (-x).priority < (x ** y).priority < x.priority

    def pair(a, b):
        return a, b

    assert [str(type_check.BinaryOperator(p, x, y, '+', pair)) for p in (7, 8, 9)] == [
        'x + y', 'x + (y)', '(x) + (y)']
    assert str(type_check.BinaryOperator(8, x, y, '**', pair, True)) == '(x) ** y'
    assert str(type_check.UnaryOperator(9, x, '-', lambda v: -v)) == '-(x)'


def test_getattr_with_a_constant_or_a_non_identifier_name():
    class Holder:
        value = 10

    holder = type_check.Variable(Holder(), 'h')
    assert str(type_check.GetAttr(holder, type_check.Constant('value'))) == 'h.value'
    assert type_check.GetAttr(holder, type_check.Constant('value')).eval() == 10
    assert str(type_check.GetAttr(holder, 3)) == 'getattr(h, 3)'


def test_expr_eval_raises_the_original_error_with_a_note():
    x = type_check.Constant(0)
    with pytest.raises(TypeError) as info:
        x[1].eval()
    assert any('0[1]' in note for note in getattr(info.value, '__notes__', ['0[1]']))
    with pytest.raises(AttributeError):
        x.missing.eval()
    with pytest.raises(type_check.InvalidType, match='0\\[1\\]'):
        type_check.eval(x[1])


def test_get_types_rejects_a_non_sequence():
    with pytest.raises(TypeError, match='sequence of arrays') as info:
        type_check.get_types(1, 'in_types', False)
    assert isinstance(info.value, AssertionError)  # Chainer asserted it


def test_repr_of_nested_containers():
    zero = type_check.Constant(0)
    assert [type_check._repr(v) for v in ([zero], (), (zero,), [[zero]])] == [
        '[0]', '()', '(0,)', '[[0]]']
