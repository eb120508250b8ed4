"""A parameter's initial NaN gradient takes memory only once it is read."""

import copy
import pickle
import tracemalloc

import numpy
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import initializers

_MIB = 1 << 20


def _traced_peak(build):
    tracemalloc.start()
    try:
        result = build()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def _assert_nan_writable(grad, shape, dtype):
    assert isinstance(grad, numpy.ndarray)
    assert grad.shape == shape and grad.dtype == dtype
    assert numpy.isnan(grad).all()
    assert grad.flags.writeable and grad.flags.c_contiguous
    grad[...] = 1  # a real array of its own


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_grad_of_a_shaped_parameter_is_a_writable_nan_array(dtype):
    param = catena.Parameter(initializers.Constant(2, dtype), (3, 4))
    _assert_nan_writable(param.grad, (3, 4), dtype)
    assert (param.grad == 1).all()
    assert param.grad_var.array is param.grad


def test_grad_var_is_a_writable_nan_array():
    param = catena.Parameter(initializers.Zero(), (5,))
    grad_var = param.grad_var
    _assert_nan_writable(grad_var.array, (5,), numpy.float32)
    assert param.grad is grad_var.array


def test_grad_of_an_initialized_parameter_is_a_writable_nan_array():
    param = catena.Parameter(initializers.Zero())
    param.initialize((2, 3))
    _assert_nan_writable(param.grad, (2, 3), numpy.float32)


def test_a_link_initialized_by_its_first_call_has_nan_gradients():
    link = L.Linear(None, 3)
    link(numpy.ones((2, 4), numpy.float32))
    _assert_nan_writable(link.W.grad, (3, 4), numpy.float32)


def test_building_a_link_allocates_no_gradient():
    link, peak = _traced_peak(lambda: L.Linear(1024, 2048, initial_bias=0))
    weights = 1024 * 2048 * 4
    assert peak < weights + _MIB  # not twice the weights
    _, peak = _traced_peak(lambda: link.W.grad)
    assert peak >= weights  # the gradient is made when it is read


def test_backward_without_cleargrads_adds_to_nan():
    link = L.Linear(3, 2)
    F.sum(link(numpy.ones((1, 3), numpy.float32))).backward()
    assert numpy.isnan(link.W.grad).all()
    assert numpy.isnan(link.b.grad).all()


def test_backward_after_cleargrads_gives_the_gradient():
    link = L.Linear(3, 2, initialW=initializers.One())
    link.cleargrads()
    F.sum(link(numpy.full((1, 3), 2, numpy.float32))).backward()
    numpy.testing.assert_array_equal(link.W.grad, numpy.full((2, 3), 2, numpy.float32))
    numpy.testing.assert_array_equal(link.b.grad, numpy.ones(2, numpy.float32))


def test_zerograd_gives_writable_zeros():
    param = catena.Parameter(initializers.One(), (2, 2))
    with pytest.warns(DeprecationWarning):
        param.zerograd()
    numpy.testing.assert_array_equal(param.grad, numpy.zeros((2, 2), numpy.float32))
    param.grad += 1
    assert (param.grad == 1).all()


def test_shallow_copies_share_the_gradient_made_from_the_nan():
    param = catena.Parameter(initializers.One(), (2,))
    shared = copy.copy(param)
    shared.grad[...] = 3
    assert param.grad is shared.grad
    assert (param.grad == 3).all()


@pytest.mark.parametrize('duplicate', [copy.deepcopy, lambda p: pickle.loads(pickle.dumps(p))])
def test_copies_have_writable_nan_gradients(duplicate):
    param = catena.Parameter(initializers.One(), (2, 3))
    _assert_nan_writable(duplicate(param).grad, (2, 3), numpy.float32)
    assert numpy.isnan(param.grad).all()


def test_to_cpu_keeps_the_nan_gradient():
    param = catena.Parameter(initializers.One(), (4,))
    param.to_cpu()
    _assert_nan_writable(param.grad, (4,), numpy.float32)


def test_addgrad_adds_to_the_nan_gradient():
    dst = catena.Parameter(initializers.One(), (2,))
    src = catena.Parameter(initializers.One(), (2,))
    src.grad = numpy.ones(2, numpy.float32)
    dst.addgrad(src)
    assert numpy.isnan(dst.grad).all()


def test_setting_grad_replaces_the_nan_gradient():
    param = catena.Parameter(initializers.One(), (2,))
    param.grad = numpy.full(2, 5, numpy.float32)
    numpy.testing.assert_array_equal(param.grad, [5, 5])
    param.cleargrad()
    assert param.grad is None


def test_parameter_sent_to_numpy_before_initialize_gets_a_lazy_nan_gradient():
    param = catena.Parameter(initializers.One())
    param.to_device('@numpy')
    _, peak = _traced_peak(lambda: param.initialize((512, 512)))
    assert peak < 2 * 512 * 512 * 4  # the array, without a gradient beside it
    _assert_nan_writable(param.grad, (512, 512), numpy.float32)
