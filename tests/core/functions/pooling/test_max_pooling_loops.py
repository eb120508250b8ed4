"""2-D max pooling's compiled gradient (catena._cpooling) against the NumPy tap-by-tap code.

test_max_pooling_2d.py checks the function against an independent reference
with whichever code is in use; here both codes run on the same inputs and
must agree, and the inputs the loop does not take must take the NumPy code.
"""

from __future__ import annotations

import numpy
import pytest

from catena.functions.pooling import _window

needs_loops = pytest.mark.skipif(_window._loops is None, reason='catena._cpooling is not in use')

GEOMETRIES = [  # ksize, stride, pad, cover_all
    ((2, 2), (2, 2), (0, 0), False),
    ((3, 3), (2, 2), (1, 1), False),
    ((3, 2), (1, 2), (1, 0), True),
    ((5, 5), (3, 3), (2, 2), True),
    ((12, 12), (4, 4), (0, 0), False),  # 144 taps: int16 indexes
]


def _both(monkeypatch, function, *args):
    compiled = function(*args)
    with monkeypatch.context() as patch:
        patch.setattr(_window, '_loops', None)
        reference = function(*args)
    return compiled, reference


@needs_loops
@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('geometry', GEOMETRIES, ids=str)
def test_the_gradient_matches_the_numpy_code(geometry, dtype, monkeypatch):
    ksize, stride, pad, cover_all = geometry
    shape = (2, 3, 25, 23) if ksize[0] == 12 else (2, 3, 13, 11)
    x = numpy.random.default_rng(1).standard_normal(shape).astype(dtype)
    _, taps = _window.max_pool(x, *geometry, True)
    gy = numpy.random.default_rng(2).standard_normal(taps.shape).astype(dtype)
    gx, gx_ref = _both(monkeypatch, _window.scatter, gy, taps, ksize, stride, pad, shape[2:])
    assert gx.shape == x.shape and gx.dtype == dtype
    # Overlapping windows add in another order.
    tolerance = {'rtol': 1e-5, 'atol': 1e-6} if dtype == numpy.float32 else {'rtol': 1e-13}
    numpy.testing.assert_allclose(gx, gx_ref, **tolerance)


@needs_loops
def test_a_read_only_gradient_is_read(monkeypatch):
    x = numpy.random.default_rng(3).standard_normal((1, 2, 6, 6)).astype(numpy.float32)
    _, taps = _window.max_pool(x, (2, 2), (2, 2), (0, 0), False, True)
    gy = numpy.ones(taps.shape, numpy.float32)
    gy.flags.writeable = False
    taps.flags.writeable = False
    gx, gx_ref = _both(monkeypatch, _window.scatter, gy, taps, (2, 2), (2, 2), (0, 0), (6, 6))
    numpy.testing.assert_array_equal(gx, gx_ref)
    assert gx.sum() == gy.size


@needs_loops
def test_taps_outside_the_window_add_nothing(monkeypatch):
    gy = numpy.ones((1, 1, 2, 2), numpy.float32)
    taps = numpy.array([[[[0, 3], [-1, 4]]]], numpy.int8)  # 2x2 windows: taps 0..3
    gx, gx_ref = _both(monkeypatch, _window.scatter, gy, taps, (2, 2), (2, 2), (0, 0), (4, 4))
    numpy.testing.assert_array_equal(gx, gx_ref)
    assert gx.sum() == 2


@needs_loops
@pytest.mark.parametrize('case', ['float16', 'strided', '3-d pooling', 'subclass'])
def test_inputs_the_loops_do_not_take_go_to_numpy(case):
    x = numpy.ones((1, 2, 6, 6), numpy.float32)
    if case == 'float16':
        x = x.astype(numpy.float16)
    elif case == 'strided':
        x = numpy.ones((1, 2, 6, 12), numpy.float32)[..., ::2]
    elif case == '3-d pooling':
        x = numpy.ones((1, 2, 6, 6, 6), numpy.float32)
    else:
        x = x.view(numpy.ma.MaskedArray)
    assert not _window._compiled_takes(x)


@needs_loops
def test_the_loop_refuses_what_it_cannot_read():
    gy = numpy.ones((1, 2, 3, 3), numpy.float32)
    taps = numpy.zeros((1, 2, 3, 3), numpy.int8)
    gx = numpy.zeros((1, 2, 6, 6), numpy.float64)
    with pytest.raises(TypeError, match='do not agree'):
        _window._loops.max_pool_2d_grad(gy, taps, gx, 2, 2, 2, 2, 0, 0)
    with pytest.raises(TypeError, match='indexes must be int8, int16 or int32'):
        _window._loops.max_pool_2d_grad(gy, gy, gx.astype(numpy.float32), 2, 2, 2, 2, 0, 0)
    with pytest.raises(ValueError, match='ksize and stride must be positive'):
        _window._loops.max_pool_2d_grad(gy, taps, gx.astype(numpy.float32), 0, 2, 2, 2, 0, 0)
