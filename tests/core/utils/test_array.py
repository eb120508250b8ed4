"""Tests of catena.utils.array.force_array."""

import numpy
import pytest

from catena.utils import array


@pytest.mark.parametrize('value', [1.5, 3, numpy.float64(1.5), numpy.int32(3)])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_force_array_scalar_with_dtype(value, dtype):
    y = array.force_array(value, dtype)
    assert isinstance(y, numpy.ndarray)
    assert y.shape == ()
    assert y.dtype == dtype
    assert y == dtype(value)


def test_force_array_python_float_without_dtype():
    y = array.force_array(0.25)
    assert isinstance(y, numpy.ndarray)
    assert y.dtype == numpy.float64
    assert y == 0.25


def test_force_array_keeps_array():
    x = numpy.arange(3, dtype=numpy.float32)
    assert array.force_array(x) is x
    assert array.force_array(x, numpy.float32) is x
    assert array.force_array(x, numpy.float64).dtype == numpy.float64
