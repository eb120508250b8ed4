"""The test-only interpreter of kernel bodies: C's and CuPy's semantics, and its strictness."""

from __future__ import annotations

import numpy
import pytest
from tests.cuda.kernels import _c_body
from tests.cuda.kernels._c_body import BodyError, Program

pytest.importorskip('catena_cuda')


def _run(body: str, inputs: tuple, in_params: str = 'T x', out_params: str = 'T y',
         outputs: tuple = (), types: dict | None = None, typedefs: tuple = ()) -> tuple:
    return Program(in_params, out_params, body, typedefs).run(inputs, outputs, types)


# ---------------------------------------------------------------------------
# What it computes
# ---------------------------------------------------------------------------

def test_arithmetic_follows_the_statements_elementwise() -> None:
    x = numpy.array([1.0, -2.0, 3.5], numpy.float32)
    y, = _run('T two = (T)2;\nT doubled = mul_rn(x, two);\nT less = doubled - x;\n'
              'y = mul_rn(less, x);\ny /= two;', (x,))
    numpy.testing.assert_array_equal(y, (x * 2 - x) * x / 2)
    assert y.dtype == numpy.float32


def test_float16_arithmetic_is_float32_until_it_is_stored() -> None:
    # 2049 is not a float16; mul_rn(a, b) / c stays in float32 within one expression
    # in C, while two statements round to float16 in between.
    a = numpy.array([2049.0], numpy.float32).astype(numpy.float16)  # 2048
    b = numpy.array([3.0], numpy.float16)
    c = numpy.array([3.0], numpy.float16)
    body_rounded = 'T p = mul_rn(a, b);\ny = p / c;'
    y, = _run(body_rounded, (a, b, c), 'T a, T b, T c')
    assert y[0] == numpy.float16(numpy.float16(2048 * 3) / 3)
    with pytest.raises(BodyError, match='mixed types'):
        _run('y = mul_rn(a, b) / c;', (a, b, c), 'T a, T b, T c')


def test_float16_math_functions_compute_in_float32() -> None:
    x = numpy.linspace(-3, 3, 101).astype(numpy.float16)
    y, = _run('y = tanh(x);', (x,))
    assert y.dtype == numpy.float16
    numpy.testing.assert_array_equal(y, numpy.tanh(x.astype(numpy.float32)).astype(numpy.float16))


def test_work_type_from_typedef_and_casts() -> None:
    x = numpy.array([1.0, 2.0], numpy.float16)
    eps = numpy.float32(1e-8)
    y, = _run('W wide = (W)x;\nW shifted = wide + eps;\ny = (T)shifted;', (x, eps),
              'T x, W eps', types={'W': numpy.float32}, typedefs=('W',))
    numpy.testing.assert_array_equal(y, (x.astype(numpy.float32) + eps).astype(numpy.float16))


def test_outputs_are_updated_in_place_and_broadcast() -> None:
    x = numpy.array([1.0, 2.0, 3.0])
    y = numpy.array([10.0, 20.0, 30.0])
    lr = numpy.float64(0.5)
    out, = _run('T step = mul_rn(x, lr);\ny -= step;', (x, lr), 'T x, T lr', outputs=(y,))
    assert out is y
    numpy.testing.assert_array_equal(y, [9.5, 19.0, 28.5])
    zero_d, = _run('T zero = (T)0;\ny = zero;', (numpy.ones((2, 3)),))
    assert zero_d.shape == (2, 3)
    assert not zero_d.any()


def test_ternary_comparisons_and_logic_propagate_nan_where_written() -> None:
    x = numpy.array([numpy.nan, -1.0, 2.0, numpy.inf], numpy.float32)
    s = numpy.array([1.0, numpy.nan, 1.0, 1.0], numpy.float32)
    y, = _run('y = (x < s || s != s) ? s : x;', (x, s), 'T x, T s')
    numpy.testing.assert_array_equal(y, [numpy.nan, numpy.nan, 2.0, numpy.inf])
    z, = _run('bool small = !(x >= s) && x == x;\ny = small ? s : x;', (x, s), 'T x, T s')
    numpy.testing.assert_array_equal(z, [numpy.nan, numpy.nan, 2.0, numpy.inf])


def test_precedence_of_operators() -> None:
    x = numpy.array([2.0])
    y, = _run('T one = (T)1;\nT three = (T)3;\ny = one + mul_rn(x, three) - -x / x;', (x,))
    assert y[0] == 1 + 2 * 3 + 1
    z, = _run('T one = (T)1;\ny = x > one ? x < one ? one : x : one;', (x,))
    assert z[0] == 2.0


def test_run_launch_takes_a_spec_and_its_arguments() -> None:
    from catena_cuda.kernels._elementwise import Launch, Spec

    spec = Spec('k', 'T x, W w', 'T y', 'W t = mul_rn((W)x, w);\ny = (T)t;')
    x = numpy.array([1.0, 2.0], numpy.float16)
    y = _c_body.run_launch(Launch(spec, (x, numpy.float32(3)), work=numpy.dtype('float32')))
    numpy.testing.assert_array_equal(y, numpy.array([3.0, 6.0], numpy.float16))


# ---------------------------------------------------------------------------
# What it refuses
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('body, message', [
    ('y = x + 1;', 'must be cast'),
    ('y = mul_rn(x, (T)0.1);', 'not exact'),
    ('y = x * x;', 'mul_rn'),
    ('y *= x;', 'mul_rn'),
    ('y = mul_rn(x);', 'argument'),
    ('y = mul_rn(x, x, x);', 'argument'),
    ('y = max(x, x);', 'unsupported function'),
    ('y = fabs(x);', 'unsupported function'),
    ('if (x > (T)0) y = x;', 'a statement cannot start|unsupported statement'),
    ('y = x; // comment', 'cannot start'),
    ('y = x++;', 'unexpected|expected'),
    ('y = 1.0f + x;', 'cannot read'),
    ('float z = x;\ny = z;', 'unsupported statement'),
    ('x = x;\ny = x;', 'const'),
    ('z = x;\ny = x;', 'never declared'),
    ('y = z;', 'undeclared'),
    ('T y2 = x;', 'never writes'),
    ('T exp = x;\ny = exp;', 'reserved'),
    ('T half = x;\ny = half;', 'reserved'),
    ('T i = x;\ny = i;', 'reserved'),
    ('T _t = x;\ny = _t;', 'reserved'),
    ('T x = x;\ny = x;', 'declared twice'),
    ('T T = x;\ny = T;', 'type name'),
    ('y = a;\nT a = x;', 'before it has a value'),
    ('a = x;\nT a = x;\ny = a;', 'never declared'),
    ('T a = x;\nT a = x;\ny = a;', 'declared twice'),
    ('T a = x\ny = a;', 'expected'),
    ('T a += x;\ny = a;', 'needs "="'),
    ('y %= x;', 'cannot read|unsupported'),
    ('y = x & x;', 'cannot read'),
    ('bool b = x;\ny = x;', 'needs a cast'),
    ('y = x > x;', 'needs a cast'),
    ('y = x ? x : x;', 'condition'),
    ('bool b = x > x;\ny = b ? x : x > x;', 'differ in type'),
    ('y = !x;', 'takes a bool'),
    ('bool b = x > x && x;\ny = x;', 'takes bools'),
    ('y = sqrt(x, x);', 'argument'),
])
def test_rejects_what_it_cannot_interpret(body: str, message: str) -> None:
    with pytest.raises(BodyError, match=message):
        _run(body, (numpy.ones(3, numpy.float32),))


def test_rejects_reading_an_output_before_it_has_a_value() -> None:
    with pytest.raises(BodyError, match='before it has a value'):
        _run('y += x;', (numpy.ones(3),))
    # With the output given, y has its first value.
    y = numpy.ones(3)
    _run('y += x;', (numpy.ones(3),), outputs=(y,))
    numpy.testing.assert_array_equal(y, 2)


def test_rejects_implicit_conversions() -> None:
    x = numpy.ones(2, numpy.float16)
    w = numpy.float32(2)
    with pytest.raises(BodyError, match='mixed types'):
        _run('W t = mul_rn(x, w);\ny = (T)t;', (x, w), 'T x, W w', types={'W': numpy.float32},
             typedefs=('W',))
    with pytest.raises(BodyError, match='needs a cast'):
        _run('W t = mul_rn((W)x, w);\ny = t;', (x.astype(numpy.float64), numpy.float32(2)),
             'T x, W w', types={'W': numpy.float32}, typedefs=('W',))
    with pytest.raises(BodyError, match='float64 to float16'):
        _run('W t = (W)x;\ny = (T)t;', (x, numpy.float64(1)), 'T x, W w',
             types={'W': numpy.float64}, typedefs=('W',))


def test_rejects_badly_typed_arguments() -> None:
    x = numpy.ones(2, numpy.float32)
    with pytest.raises(BodyError, match='numpy float32 scalar'):
        _run('T t = mul_rn(x, s);\ny = t;', (x, 2.0), 'T x, T s')
    with pytest.raises(BodyError, match='numpy float32 scalar'):
        _run('T t = mul_rn(x, s);\ny = t;', (x, numpy.float64(2.0)), 'T x, T s')
    with pytest.raises(BodyError, match='but T is'):
        _run('T t = mul_rn(x, s);\ny = t;', (x, numpy.ones(2)), 'T x, T s')
    with pytest.raises(BodyError, match='cannot determine'):
        _run('y = (T)w;', (x, numpy.float32(1)), 'T x, W w', typedefs=('W',))
    with pytest.raises(BodyError, match='unsupported'):
        _run('y = x;', (numpy.ones(2, numpy.int32),))
    with pytest.raises(BodyError, match='outputs'):
        _run('y = x;', (x,), outputs=(x, x))
    with pytest.raises(BodyError, match='broadcast'):
        _run('y = x;', (x,), outputs=(numpy.ones(3, numpy.float32),))
    with pytest.raises(BodyError, match='shape'):
        _run('y = x;', (numpy.ones((2, 2), numpy.float32),),
             outputs=(numpy.ones((1, 2), numpy.float32),))
    with pytest.raises(BodyError, match='repeats'):
        Program('T x', 'T x', 'x = x;')
    with pytest.raises(BodyError, match='TYPE NAME'):
        Program('T', 'T y', 'y = y;')
