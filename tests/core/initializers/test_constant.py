"""Constant initializers: an array fills a parameter of the default dtype, as in Chainer."""

from __future__ import annotations

import numpy
import pytest

import catena
import catena.initializers as I
import catena.links as L


def test_an_array_initializer_fills_a_parameter_of_the_default_dtype():
    values = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    link = L.Linear(3, 2, initialW=values)
    assert link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.array, values.astype(numpy.float32))
    with catena.using_config('dtype', numpy.float16):
        assert L.Linear(3, 2, initialW=values).W.dtype == numpy.float16


def test_an_explicit_dtype_is_enforced():
    initializer = I.Constant(1.5, dtype=numpy.float64)
    array = numpy.empty(3, numpy.float64)
    initializer(array)
    numpy.testing.assert_array_equal(array, [1.5] * 3)
    with pytest.raises(ValueError, match='float32 differs from the initializer dtype float64'):
        initializer(numpy.empty(3, numpy.float32))


def test_a_broadcastable_array_fills_every_row():
    array = numpy.empty((2, 3), numpy.float32)
    I.Constant(numpy.array([1.0, 2.0, 3.0]))(array)
    numpy.testing.assert_array_equal(array, [[1, 2, 3], [1, 2, 3]])
