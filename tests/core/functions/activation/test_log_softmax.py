"""log_softmax: x - log(sum(exp(x))) along an axis, stable for any input range."""

# ruff: noqa: NPY002

import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

# The shifts move the inputs where exp overflows (+) or every exp underflows
# (-), so that the max-subtracting fallback is exercised too.
SHIFTS = {np.float16: 15.0, np.float32: 1000.0, np.float64: 1000.0}


def _log_softmax(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


@testing.parameterize(*(testing.product_dict(
    [{'shape': (2, 3), 'axis': 1}, {'shape': (2, 3), 'axis': 0},
     {'shape': (2, 3, 4), 'axis': -1}, {'shape': (2, 3, 4), 'axis': 1},
     {'shape': (5,), 'axis': 0}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'shift': 0}],
) + testing.product_dict(
    [{'shape': (2, 3), 'axis': 1}, {'shape': (2, 3, 4), 'axis': 1}],
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'shift': 1}, {'shift': -1}],
)))
class TestLogSoftmax(testing.FunctionTestCase):

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape) + self.shift * SHIFTS[self.dtype]
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.log_softmax(x, axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        return _log_softmax(x, self.axis).astype(self.dtype),


def test_default_axis_is_1():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(F.log_softmax(x).array, _log_softmax(x, 1), rtol=1e-5)


def test_more_accurate_than_log_of_softmax():
    # softmax underflows to 0 here; its logarithm would be -inf.
    x = np.array([[0.0, -200.0]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.log_softmax(x).array
    np.testing.assert_allclose(y, [[0.0, -200.0]], atol=1e-6)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_shift_invariant_and_quiet_where_exp_overflows(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    expected = _log_softmax(x, 1)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        for shift in (0, 200, 800, 1e4, -200, -1e4):
            shifted = (x.astype(np.float64) + shift).astype(dtype)
            np.testing.assert_allclose(F.log_softmax(shifted).array,
                                       _log_softmax(shifted, 1), rtol=1e-5, atol=1e-3)
            if abs(shift) <= 800:  # beyond, rounding x itself costs more
                np.testing.assert_allclose(F.log_softmax(shifted).array, expected,
                                           atol=1e-3)


def test_backward_from_the_output_and_double_backprop():
    rng = np.random.default_rng(0)
    x = catena.Variable(rng.uniform(-1, 1, (2, 3)))
    y = F.log_softmax(x)
    assert type(y.creator_node).__name__ == 'LogSoftmax'
    assert y.creator_node._input_indexes_to_retain is None
    gy = rng.uniform(-1, 1, (2, 3))
    gx, = catena.grad([y], [x], grad_outputs=[catena.Variable(gy)],
                      enable_double_backprop=True)
    assert type(gx.creator_node).__name__ == 'LogSoftmaxGrad'
    expected = gy - np.exp(_log_softmax(x.array, 1)) * gy.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(gx.array, expected, rtol=1e-12)
    assert gx.requires_grad


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range(axis):
    with pytest.raises(InvalidType, match='x.ndim'):
        F.log_softmax(np.zeros((2, 3), np.float32), axis=axis)


def test_axis_must_be_an_int():
    with pytest.raises(TypeError, match='log_softmax: axis must be an int'):
        F.log_softmax(np.zeros((2, 3), np.float32), axis='1')


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.log_softmax(np.zeros((2, 3), np.int32))


@pytest.mark.parametrize('shape', [(2, 0), (0, 3)])
def test_empty_input(shape):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.log_softmax(np.zeros(shape, np.float32))
    assert y.shape == shape and y.dtype == np.float32
