# The initializers draw from NumPy's global generator, as Chainer's do.
# ruff: noqa: NPY002
import numpy
import pytest

import catena
from catena import initializers


def _matrix(array):
    return array.reshape(array.shape[0], -1).astype(numpy.float64)


_TOL = {numpy.float16: 1e-2, numpy.float32: 1e-5, numpy.float64: 1e-12}


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape, mode, rows_orthogonal', [
    ((4, 7), 'auto', True),
    ((5, 5), 'auto', True),
    ((9, 3), 'auto', False),
    ((3, 2, 2, 2), 'auto', True),
    ((12, 2, 3), 'auto', False),
    ((4, 7), 'projection', True),
    ((6, 6), 'projection', True),
    ((9, 3), 'embedding', False),
    ((6, 6), 'embedding', True),
    ((6, 6), 'basis', True),
])
@pytest.mark.parametrize('scale', [1.1, 0.5])
def test_orthogonality(shape, mode, rows_orthogonal, scale, dtype):
    numpy.random.seed(0)
    array = numpy.empty(shape, dtype=dtype)
    initializers.Orthogonal(scale=scale, mode=mode)(array)
    w = _matrix(array)
    gram = w @ w.T if rows_orthogonal else w.T @ w
    numpy.testing.assert_allclose(gram, scale ** 2 * numpy.eye(len(gram)), atol=_TOL[dtype])


def test_mode_only_checks_the_shape():
    arrays = []
    for mode in ('auto', 'embedding'):
        numpy.random.seed(0)
        arrays.append(numpy.empty((12, 4)))
        initializers.Orthogonal(scale=2.0, mode=mode)(arrays[-1])
    numpy.testing.assert_array_equal(arrays[0], arrays[1])
    numpy.testing.assert_allclose(arrays[1].T @ arrays[1], 4.0 * numpy.eye(4), atol=1e-12)


def test_default_scale_and_mode():
    init = initializers.Orthogonal()
    assert init.scale == 1.1
    assert init.mode == 'auto'
    assert init.rng is None


def test_one_dimensional_shape_is_a_column():
    numpy.random.seed(0)
    array = numpy.empty((5,))
    initializers.Orthogonal()(array)
    assert numpy.sum(array ** 2) == pytest.approx(1.1 ** 2)
    with pytest.raises(ValueError, match=r'shape \(5,\)'):
        initializers.Orthogonal(mode='projection')(numpy.empty((5,)))


def test_zero_dimensional():
    numpy.random.seed(0)
    seen = set()
    for _ in range(20):
        array = numpy.empty(())
        initializers.Orthogonal(scale=2.0)(array)
        seen.add(float(array))
    assert seen == {2.0, -2.0}


def test_uniform_over_signs():
    # The sign fix makes the distribution rotation invariant: no entry is biased.
    numpy.random.seed(1)
    total = numpy.zeros((3, 3))
    for _ in range(400):
        array = numpy.empty((3, 3))
        initializers.Orthogonal(scale=1.0)(array)
        total += array
    assert numpy.abs(total / 400).max() < 0.15


def test_reproducible():
    first = numpy.empty((4, 6))
    second = numpy.empty((4, 6))
    numpy.random.seed(3)
    initializers.Orthogonal()(first)
    numpy.random.seed(3)
    initializers.Orthogonal()(second)
    numpy.testing.assert_array_equal(first, second)
    initializers.Orthogonal(rng=numpy.random.RandomState(2))(first)
    initializers.Orthogonal(rng=numpy.random.RandomState(2))(second)
    numpy.testing.assert_array_equal(first, second)
    third = numpy.empty((4, 6))
    initializers.Orthogonal(scale=1.0, rng=numpy.random.default_rng(2))(third)
    numpy.testing.assert_allclose(third @ third.T, numpy.eye(4), atol=1e-12)


@pytest.mark.parametrize('config_dtype, expected', [
    (numpy.float16, numpy.float16), (numpy.float64, numpy.float64),
    (catena.mixed16, numpy.float16)])
def test_config_dtype(config_dtype, expected):
    with catena.using_config('dtype', config_dtype):
        array = initializers.generate_array(initializers.Orthogonal(), (3, 4), numpy)
    assert array.dtype == numpy.dtype(expected)


def test_dtype_mismatch():
    with pytest.raises(ValueError, match='dtype'):
        initializers.Orthogonal(dtype=numpy.float32)(numpy.empty((3, 4)))


def test_errors():
    with pytest.raises(ValueError, match='mode'):
        initializers.Orthogonal(mode='rows')
    with pytest.raises(ValueError, match=r"mode='projection'.*shape \(5, 3\)"):
        initializers.Orthogonal(mode='projection')(numpy.empty((5, 3)))
    with pytest.raises(ValueError, match=r"mode='basis'.*shape \(3, 5\)"):
        initializers.Orthogonal(mode='basis')(numpy.empty((3, 5)))
    with pytest.raises(ValueError, match=r"mode='basis'.*shape \(5, 3\)"):
        initializers.Orthogonal(mode='basis')(numpy.empty((5, 3)))
    with pytest.raises(ValueError, match=r"mode='embedding'.*shape \(2, 2, 2\)"):
        initializers.Orthogonal(mode='embedding')(numpy.empty((2, 2, 2)))
    with pytest.raises(ValueError, match=r'shape \(0, 3\)'):
        initializers.Orthogonal()(numpy.empty((0, 3)))
