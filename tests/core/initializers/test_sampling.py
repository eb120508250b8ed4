import itertools

import numpy
import pytest

import catena
from catena import initializers


def _expected_kernel(size, ndim):
    # Tent weights: 1 - |i - c| / f with f = ceil(size / 2) and c the kernel centre.
    f = (size + 1) // 2
    c = (size - 1) / 2 if size % 2 == 1 else f - 0.5
    kernel = numpy.empty((size,) * ndim)
    for index in itertools.product(range(size), repeat=ndim):
        value = 1.0
        for i in index:
            value *= 1 - abs(i - c) / f
        kernel[index] = value
    return kernel


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(3, 3, 4, 4), (2, 2, 3, 3), (2, 1, 5, 5), (2, 2, 4, 4, 4),
                                   (3, 3, 6)])
@pytest.mark.parametrize('cls, normalized', [(initializers.UpsamplingDeconvFilter, False),
                                             (initializers.DownsamplingConvFilter, True)])
def test_values(cls, normalized, shape, dtype):
    array = numpy.full(shape, 7.0, dtype=dtype)
    cls()(array)
    kernel = _expected_kernel(shape[2], len(shape) - 2)
    if normalized:
        kernel /= kernel.sum()
    expected = numpy.zeros(shape)
    for i in range(shape[0]):
        expected[i, i if shape[1] > 1 else 0] = kernel
    tol = 1e-3 if dtype == numpy.float16 else 1e-7
    numpy.testing.assert_allclose(array, expected, rtol=tol, atol=tol)


def test_known_values():
    array = numpy.empty((1, 1, 4, 4))
    initializers.UpsamplingDeconvFilter()(array)
    row = numpy.array([0.25, 0.75, 0.75, 0.25])
    numpy.testing.assert_allclose(array[0, 0], numpy.outer(row, row))
    array = numpy.empty((1, 1, 3, 3))
    initializers.DownsamplingConvFilter()(array)
    row = numpy.array([0.25, 0.5, 0.25])
    numpy.testing.assert_allclose(array[0, 0], numpy.outer(row, row))


@pytest.mark.parametrize('cls', [initializers.UpsamplingDeconvFilter,
                                 initializers.DownsamplingConvFilter])
def test_errors(cls):
    assert cls().interpolation == 'linear'
    with pytest.raises(ValueError, match='interpolation'):
        cls(interpolation='nearest')
    with pytest.raises(ValueError, match=r'shape \(2, 3, 4, 4\)'):
        cls()(numpy.empty((2, 3, 4, 4)))
    with pytest.raises(ValueError, match=r'shape \(2, 2, 4, 3\)'):
        cls()(numpy.empty((2, 2, 4, 3)))
    with pytest.raises(ValueError, match=r'shape \(2, 2\)'):
        cls()(numpy.empty((2, 2)))
    with pytest.raises(ValueError, match='dtype'):
        cls(dtype=numpy.float32)(numpy.empty((2, 2, 4, 4)))


@pytest.mark.parametrize('config_dtype, expected', [
    (numpy.float16, numpy.float16), (numpy.float64, numpy.float64),
    (catena.mixed16, numpy.float16)])
def test_config_dtype(config_dtype, expected):
    with catena.using_config('dtype', config_dtype):
        array = initializers.generate_array(initializers.UpsamplingDeconvFilter(),
                                            (2, 2, 4, 4), numpy)
    assert array.dtype == numpy.dtype(expected)
    assert array[0, 0, 1, 1] == pytest.approx(0.5625)
