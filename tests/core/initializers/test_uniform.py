# The initializers draw from NumPy's global generator, as Chainer's do.
# ruff: noqa: NPY002
import math

import numpy
import pytest

import catena
from catena import initializers

# (initializer, shape, expected half-width s written from the documented formulas)
_CASES = [
    (lambda: initializers.Uniform(), (300, 200), 0.05),
    (lambda: initializers.Uniform(scale=2.0), (60000,), 2.0),
    (lambda: initializers.LeCunUniform(), (300, 200), math.sqrt(3 / 200)),
    (lambda: initializers.LeCunUniform(scale=3.0), (40, 30, 5, 5), 3.0 * math.sqrt(3 / 750)),
    (lambda: initializers.GlorotUniform(), (300, 200), math.sqrt(6 / 500)),
    (lambda: initializers.GlorotUniform(scale=0.5), (40, 30, 3, 3),
     0.5 * math.sqrt(6 / (270 + 360))),
    (lambda: initializers.HeUniform(), (300, 200), math.sqrt(6 / 200)),
    (lambda: initializers.HeUniform(scale=2.0), (40, 30, 3, 3), 2.0 * math.sqrt(6 / 270)),
]


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('make, shape, bound', _CASES)
def test_statistics(make, shape, bound, dtype):
    numpy.random.seed(0)
    array = numpy.empty(shape, dtype=dtype)
    make()(array)
    values = array.astype(numpy.float64)
    n = values.size
    # float16 rounding may land exactly on the bound.
    assert numpy.abs(values).max() <= bound * (1 + 1e-3)
    assert numpy.abs(values).max() > bound * 0.99
    std = bound / math.sqrt(3)
    assert abs(values.mean()) < 5 * std / math.sqrt(n)
    assert values.std() == pytest.approx(std, rel=0.03)
    # Uniform: a quarter of the mass lies in each half of each side.
    assert numpy.mean(numpy.abs(values) < bound / 2) == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize('cls', [initializers.Uniform, initializers.LeCunUniform,
                                 initializers.GlorotUniform, initializers.HeUniform])
def test_reproducible_under_global_seed(cls):
    first = numpy.empty((20, 10), numpy.float32)
    second = numpy.empty((20, 10), numpy.float32)
    numpy.random.seed(7)
    cls()(first)
    numpy.random.seed(7)
    cls()(second)
    numpy.testing.assert_array_equal(first, second)
    cls()(second)
    assert not numpy.array_equal(first, second)


@pytest.mark.parametrize('cls', [initializers.Uniform, initializers.LeCunUniform,
                                 initializers.GlorotUniform, initializers.HeUniform])
def test_rng_argument(cls):
    numpy.random.seed(3)
    state = numpy.random.get_state()[1].copy()
    first = numpy.empty((20, 10))
    second = numpy.empty((20, 10))
    cls(rng=numpy.random.RandomState(5))(first)
    cls(rng=numpy.random.RandomState(5))(second)
    numpy.testing.assert_array_equal(first, second)
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state)
    third = numpy.empty((20, 10))
    cls(rng=numpy.random.default_rng(5))(third)
    assert numpy.isfinite(third).all() and third.std() > 0


def test_values_follow_the_scale():
    base = numpy.empty((8, 6))
    scaled = numpy.empty((8, 6))
    initializers.Uniform(1.0, rng=numpy.random.RandomState(11))(base)
    initializers.GlorotUniform(rng=numpy.random.RandomState(11))(scaled)
    numpy.testing.assert_allclose(scaled, base * math.sqrt(6 / 14))


@pytest.mark.parametrize('cls', [initializers.Uniform, initializers.LeCunUniform,
                                 initializers.GlorotUniform, initializers.HeUniform])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_dtype(cls, dtype):
    init = cls(dtype=dtype)
    array = initializers.generate_array(init, (6, 5), numpy)
    assert array.dtype == numpy.dtype(dtype)
    other = numpy.float64 if dtype != numpy.float64 else numpy.float32
    with pytest.raises(ValueError, match='dtype'):
        init(numpy.empty((6, 5), other))
    with pytest.raises(ValueError, match='dtype'):
        initializers.generate_array(init, (6, 5), numpy, dtype=other)


@pytest.mark.parametrize('config_dtype, expected', [
    (numpy.float16, numpy.float16), (numpy.float64, numpy.float64),
    (catena.mixed16, numpy.float16)])
def test_config_dtype(config_dtype, expected):
    with catena.using_config('dtype', config_dtype):
        array = initializers.generate_array(initializers.GlorotUniform(), (6, 5), numpy)
    assert array.dtype == numpy.dtype(expected)


def test_defaults():
    assert initializers.Uniform().scale == 0.05
    for cls in (initializers.LeCunUniform, initializers.GlorotUniform, initializers.HeUniform):
        assert cls().scale == 1.0
        assert cls().dtype is None


@pytest.mark.parametrize('cls', [initializers.LeCunUniform, initializers.GlorotUniform,
                                 initializers.HeUniform])
def test_fan_errors_name_the_shape(cls):
    with pytest.raises(ValueError, match='shape'):
        cls()(numpy.empty((5,)))
    with pytest.raises(ValueError, match='shape'):
        cls()(numpy.empty((0, 0, 3)))
