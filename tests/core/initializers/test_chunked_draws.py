# The initializers draw from NumPy's global generator, as Chainer's do.
# ruff: noqa: NPY002
"""Large arrays are drawn a chunk at a time: the values must be those of one draw."""

import numpy
import pytest

from catena import initializers
from catena.initializers import _base

# Odd sizes on both sides of the chunk: a whole number of chunks, a partial last
# one, and a Gaussian draw whose cached second value straddles a chunk boundary.
_SIZES = [_base._DRAW_CHUNK + 1, 3 * _base._DRAW_CHUNK, 2 * _base._DRAW_CHUNK + 7]
_CASES = [
    (lambda rng: initializers.Normal(0.01, rng=rng), 'normal', {'loc': 0.0, 'scale': 0.01}),
    (lambda rng: initializers.Uniform(0.3, rng=rng), 'uniform', {'low': -0.3, 'high': 0.3}),
]
_SOURCES = {
    'global': lambda: None,
    'RandomState': lambda: numpy.random.RandomState(5),
    'Generator': lambda: numpy.random.default_rng(5),
}


def _next_value(rng):
    source = numpy.random if rng is None else rng
    if isinstance(source, numpy.random.Generator):
        return source.random()
    return source.random_sample()


@pytest.mark.parametrize('size', _SIZES)
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('make, method, params', _CASES)
@pytest.mark.parametrize('source', sorted(_SOURCES))
def test_chunked_fill_equals_one_draw(source, make, method, params, dtype, size):
    numpy.random.seed(11)
    rng = _SOURCES[source]()
    expected = getattr(numpy.random if rng is None else rng, method)(size=(size,), **params)
    expected = expected.astype(dtype)
    after_expected = _next_value(rng)

    numpy.random.seed(11)
    rng = _SOURCES[source]()
    array = numpy.empty((size,), dtype=dtype)
    make(rng)(array)

    assert array.dtype == dtype
    # Bit for bit, and the generator is left where one draw leaves it.
    numpy.testing.assert_array_equal(array.view(f'u{array.itemsize}'),
                                     expected.view(f'u{array.itemsize}'))
    assert _next_value(rng) == after_expected


def test_multidimensional_array_is_filled_in_c_order():
    shape = (4, _base._DRAW_CHUNK // 2 + 3, 2)
    numpy.random.seed(2)
    expected = numpy.random.normal(loc=0.0, scale=0.05, size=shape).astype(numpy.float32)
    numpy.random.seed(2)
    array = initializers.generate_array(initializers.Normal(), shape, numpy,
                                        dtype=numpy.float32)
    assert array.shape == shape and array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, expected)


def test_non_contiguous_array_is_filled_in_one_draw():
    base = numpy.zeros((2 * _base._DRAW_CHUNK, 2), dtype=numpy.float32)
    view = base[:, 0]
    numpy.random.seed(4)
    expected = numpy.random.uniform(low=-0.5, high=0.5, size=view.shape).astype(numpy.float32)
    numpy.random.seed(4)
    initializers.Uniform(0.5)(view)
    numpy.testing.assert_array_equal(view, expected)
    assert not base[:, 1].any()


def test_other_generators_get_one_draw_of_the_whole_shape():
    calls = []

    class Recorder:
        def normal(self, loc, scale, size):
            calls.append(size)
            return numpy.full(size, loc + scale)

    array = numpy.empty((3, _base._DRAW_CHUNK), dtype=numpy.float32)
    initializers.Normal(2.0, rng=Recorder())(array)
    assert calls == [(3, _base._DRAW_CHUNK)]
    assert (array == 2.0).all()


def test_fill_holds_no_float64_copy_of_a_large_array():
    tracemalloc = pytest.importorskip('tracemalloc')
    array = numpy.empty((64, _base._DRAW_CHUNK), dtype=numpy.float32)  # 16 MiB
    tracemalloc.start()
    try:
        initializers.LeCunNormal()(array)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 8 * _base._DRAW_CHUNK  # a few chunks of float64, not 32 MiB
