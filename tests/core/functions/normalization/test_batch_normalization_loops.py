"""Batch normalization's compiled per-channel loops (catena._cnorm) against its NumPy code.

test_batch_normalization.py checks the function against an independent
reference with whichever code is in use; here both codes run on the same
inputs and must agree, and the inputs the loops do not take must take the
NumPy code.
"""

from __future__ import annotations

import numpy
import pytest

import catena
import catena.functions as F
from catena.functions.normalization import _common

needs_loops = pytest.mark.skipif(_common._loops is None, reason='catena._cnorm is not in use')

TOLERANCE = {numpy.float32: {'rtol': 2e-5, 'atol': 2e-5},
             numpy.float64: {'rtol': 1e-12, 'atol': 1e-12}}


def _step(x, gamma, beta, gy, running):
    """One training forward and backward; returns output, gradients and running averages."""
    mean, var = (numpy.zeros_like(gamma), numpy.ones_like(gamma)) if running else (None, None)
    xv, gv, bv = catena.Variable(x), catena.Variable(gamma), catena.Variable(beta)
    y = F.batch_normalization(xv, gv, bv, running_mean=mean, running_var=var)
    y.grad = gy
    y.backward()
    results = {'y': y.array, 'gx': xv.grad, 'ggamma': gv.grad, 'gbeta': bv.grad}
    if running:
        results.update(running_mean=mean, running_var=var)
    return results


def _inputs(shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, shape[1]).astype(dtype)
    beta = rng.standard_normal(shape[1]).astype(dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    return x, gamma, beta, gy


@needs_loops
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('shape', [(5, 3, 4, 4), (2, 7, 5), (3, 4, 2, 2), (16, 8, 9, 7)])
@pytest.mark.parametrize('running', [False, True])
def test_the_loops_compute_what_the_numpy_code_does(shape, dtype, running, monkeypatch):
    inputs = _inputs(shape, dtype)
    compiled = _step(*(a.copy() for a in inputs), running)
    monkeypatch.setattr(_common, '_loops', None)
    reference = _step(*(a.copy() for a in inputs), running)
    for name, value in reference.items():
        assert compiled[name].dtype == value.dtype, name
        numpy.testing.assert_allclose(compiled[name], value, err_msg=name, **TOLERANCE[dtype])


@needs_loops
def test_statistics_match_an_independent_float64_computation():
    x = _inputs((6, 5, 3, 4), numpy.float32)[0] + 1000  # a large mean: two passes stay exact
    mean, var = _common._loops.statistics(x.reshape(6, 5, 12))
    x64 = x.astype(numpy.float64)
    numpy.testing.assert_allclose(mean, x64.mean(axis=(0, 2, 3)), rtol=1e-6)
    numpy.testing.assert_allclose(var, x64.var(axis=(0, 2, 3)), rtol=1e-3)


@needs_loops
@pytest.mark.parametrize('case', ['rows of three', 'float16', 'strided x', 'a subclass'])
def test_inputs_the_loops_do_not_take_go_to_numpy(case):
    x = numpy.ones((2, 3, 8), numpy.float32)
    if case == 'rows of three':
        x = numpy.ones((2, 3, 3), numpy.float32)
    elif case == 'float16':
        x = x.astype(numpy.float16)
    elif case == 'strided x':
        x = numpy.ones((2, 3, 16), numpy.float32)[:, :, ::2]
    else:
        x = x.view(numpy.ma.MaskedArray)
    assert _common.compiled_loops(x, numpy.dtype(numpy.float32)) is None


@needs_loops
def test_a_gradient_that_is_a_broadcast_view_takes_the_numpy_code():
    x, gamma, beta, _ = _inputs((4, 3, 5, 5), numpy.float32)
    gy = numpy.broadcast_to(numpy.float32(1), x.shape)
    xv = catena.Variable(x)
    y = F.batch_normalization(xv, catena.Variable(gamma), catena.Variable(beta))
    y.grad = gy
    y.backward()
    # A constant gradient has no component along x_hat, so gx is zero.
    numpy.testing.assert_allclose(xv.grad, numpy.zeros_like(x), atol=1e-5)


@needs_loops
@pytest.mark.parametrize('arguments, message', [
    (lambda x, v: (x.reshape(6, 40),), 'x must be a C-contiguous float32 or float64 ndarray'),
    (lambda x, v: (x.astype(numpy.int32),), 'x must be a C-contiguous'),
])
def test_statistics_refuses_what_it_cannot_read(arguments, message):
    x = numpy.ones((6, 5, 8), numpy.float32)
    with pytest.raises(TypeError, match=message):
        _common._loops.statistics(*arguments(x, None))


@needs_loops
def test_normalize_names_a_per_channel_array_of_the_wrong_size_or_dtype():
    x = numpy.ones((6, 5, 8), numpy.float32)
    good = numpy.ones(5, numpy.float32)
    with pytest.raises(TypeError, match='scale must have one element per channel'):
        _common._loops.normalize(x, good, numpy.ones(4, numpy.float32), good)
    with pytest.raises(TypeError, match='shift must have the dtype of x'):
        _common._loops.normalize(x, good, good, numpy.ones(5))
