# The initializers draw from NumPy's global generator, as Chainer's do.
# ruff: noqa: NPY002
import math

import numpy
import pytest

import catena
from catena import initializers

# (initializer, shape, expected standard deviation written from the documented formulas)
_CASES = [
    (lambda: initializers.Normal(), (300, 200), 0.05),
    (lambda: initializers.Normal(scale=2.0), (60000,), 2.0),
    (lambda: initializers.LeCunNormal(), (300, 200), math.sqrt(1 / 200)),
    (lambda: initializers.LeCunNormal(scale=3.0), (40, 30, 5, 5), 3.0 * math.sqrt(1 / 750)),
    (lambda: initializers.GlorotNormal(), (300, 200), math.sqrt(2 / 500)),
    (lambda: initializers.GlorotNormal(scale=0.5), (40, 30, 3, 3),
     0.5 * math.sqrt(2 / (270 + 360))),
    (lambda: initializers.HeNormal(), (300, 200), math.sqrt(2 / 200)),
    (lambda: initializers.HeNormal(fan_option='fan_out'), (300, 200), math.sqrt(2 / 300)),
    (lambda: initializers.HeNormal(scale=2.0, fan_option='fan_out'), (40, 30, 3, 3),
     2.0 * math.sqrt(2 / 360)),
]


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('make, shape, std', _CASES)
def test_statistics(make, shape, std, dtype):
    numpy.random.seed(0)
    array = numpy.empty(shape, dtype=dtype)
    make()(array)
    values = array.astype(numpy.float64)
    n = values.size
    assert abs(values.mean()) < 5 * std / math.sqrt(n)
    assert values.std() == pytest.approx(std, rel=0.03)
    # A Gaussian puts about 68.3 % of its mass within one standard deviation.
    assert numpy.mean(numpy.abs(values) < std) == pytest.approx(0.6827, abs=0.02)


@pytest.mark.parametrize('cls', [initializers.Normal, initializers.LeCunNormal,
                                 initializers.GlorotNormal, initializers.HeNormal])
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


@pytest.mark.parametrize('cls', [initializers.Normal, initializers.LeCunNormal,
                                 initializers.GlorotNormal, initializers.HeNormal])
def test_rng_argument(cls):
    numpy.random.seed(3)
    state = numpy.random.get_state()[1].copy()
    first = numpy.empty((20, 10))
    second = numpy.empty((20, 10))
    cls(rng=numpy.random.RandomState(5))(first)
    cls(rng=numpy.random.RandomState(5))(second)
    numpy.testing.assert_array_equal(first, second)
    # The global generator was not used.
    numpy.testing.assert_array_equal(numpy.random.get_state()[1], state)
    third = numpy.empty((20, 10))
    cls(rng=numpy.random.default_rng(5))(third)
    assert numpy.isfinite(third).all() and third.std() > 0


def test_values_follow_the_scale():
    rng_a = numpy.random.RandomState(11)
    rng_b = numpy.random.RandomState(11)
    base = numpy.empty((8, 6))
    scaled = numpy.empty((8, 6))
    initializers.Normal(1.0, rng=rng_a)(base)
    initializers.HeNormal(rng=rng_b)(scaled)
    numpy.testing.assert_allclose(scaled, base * math.sqrt(2 / 6))


@pytest.mark.parametrize('cls', [initializers.Normal, initializers.LeCunNormal,
                                 initializers.GlorotNormal, initializers.HeNormal])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_dtype(cls, dtype):
    init = cls(dtype=dtype)
    assert init.dtype == numpy.dtype(dtype)
    array = initializers.generate_array(init, (6, 5), numpy)
    assert array.dtype == numpy.dtype(dtype)
    other = numpy.float64 if dtype != numpy.float64 else numpy.float32
    with pytest.raises(ValueError, match='dtype'):
        init(numpy.empty((6, 5), other))


@pytest.mark.parametrize('config_dtype, expected', [
    (numpy.float16, numpy.float16), (numpy.float32, numpy.float32),
    (numpy.float64, numpy.float64), (catena.mixed16, numpy.float16)])
def test_config_dtype(config_dtype, expected):
    init = initializers.HeNormal()
    assert init.dtype is None
    with catena.using_config('dtype', config_dtype):
        array = initializers.generate_array(init, (6, 5), numpy)
        explicit = initializers.generate_array(init, (6, 5), numpy, dtype=numpy.float64)
    assert array.dtype == numpy.dtype(expected)
    assert explicit.dtype == numpy.float64


def test_defaults():
    assert initializers.Normal().scale == 0.05
    for cls in (initializers.LeCunNormal, initializers.GlorotNormal, initializers.HeNormal):
        assert cls().scale == 1.0
        assert cls().rng is None
    assert initializers.HeNormal().fan_option == 'fan_in'


def test_he_normal_unknown_fan_option():
    with pytest.raises(ValueError, match='fan_option'):
        initializers.HeNormal(fan_option='fan_avg')


@pytest.mark.parametrize('cls', [initializers.LeCunNormal, initializers.GlorotNormal,
                                 initializers.HeNormal])
def test_fan_errors_name_the_shape(cls):
    with pytest.raises(ValueError, match='shape'):
        cls()(numpy.empty((5,)))
    with pytest.raises(ValueError, match='shape'):
        cls()(numpy.empty((0, 0)))
    with pytest.raises(ValueError, match=r'shape \(4, 0\)'):
        initializers.LeCunNormal()(numpy.empty((4, 0)))


def test_normal_accepts_any_shape():
    numpy.random.seed(0)
    for shape in [(), (5,), (0, 3), (2, 3, 4)]:
        array = numpy.zeros(shape)
        initializers.Normal(1.0)(array)
        assert array.shape == shape
    scalar = numpy.zeros(())
    initializers.Normal(1.0)(scalar)
    assert scalar != 0
