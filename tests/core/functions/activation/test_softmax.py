"""softmax: exp(x) / sum(exp(x)) along an axis, stable for any input range."""

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


def _softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


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
class TestSoftmax(testing.FunctionTestCase):

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape) + self.shift * SHIFTS[self.dtype]
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.softmax(x, axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        return _softmax(x, self.axis).astype(self.dtype),


def test_default_axis_is_1():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    y = F.softmax(x)
    np.testing.assert_allclose(y.array, _softmax(x, 1), rtol=1e-5)
    np.testing.assert_allclose(y.array.sum(axis=1), 1, rtol=1e-5)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_shift_invariant_and_quiet_where_exp_overflows(dtype):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.softmax(x).array
        for shift in (200, 800, 1e4, -200, -1e4):
            if abs(shift) >= np.finfo(dtype).max / 4:
                continue
            shifted = (x.astype(np.float64) + shift).astype(dtype)
            expected = _softmax(shifted, 1)
            np.testing.assert_allclose(F.softmax(shifted).array, expected,
                                       **testing.tolerances(dtype))
    assert np.isfinite(y).all()


def test_extreme_rows_mixed_with_ordinary_ones():
    x = np.array([[0.0, 1.0, 2.0], [1000.0, 1001.0, 1002.0], [-1e4, -1e4, -1e4 + 1]],
                 np.float32)
    y = F.softmax(x).array
    np.testing.assert_allclose(y[0], y[1], rtol=1e-6)
    np.testing.assert_allclose(y[2], _softmax(x[2:], 1)[0], rtol=1e-6)


def test_infinities_and_nans_propagate_like_the_formula():
    x = np.array([[0.0, -np.inf, 1.0], [0.0, np.nan, 1.0]], np.float32)
    y = F.softmax(x).array
    np.testing.assert_allclose(y[0], [1 / (1 + np.e), 0.0, np.e / (1 + np.e)], rtol=1e-6)
    assert np.isnan(y[1]).all()


def test_backward_from_the_output_and_double_backprop():
    rng = np.random.default_rng(0)
    x = catena.Variable(rng.uniform(-1, 1, (2, 3)))
    y = F.softmax(x)
    assert type(y.creator_node).__name__ == 'Softmax'
    assert y.creator_node._input_indexes_to_retain is None
    gy = rng.uniform(-1, 1, (2, 3))
    gx, = catena.grad([y], [x], grad_outputs=[catena.Variable(gy)],
                      enable_double_backprop=True)
    assert type(gx.creator_node).__name__ == '_SoftmaxGrad'
    s = _softmax(x.array, 1)
    expected = s * gy - s * (s * gy).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(gx.array, expected, rtol=1e-12)
    assert gx.requires_grad


@pytest.mark.parametrize('axis', [2, -3])
def test_axis_out_of_range(axis):
    with pytest.raises(InvalidType, match='x.ndim'):
        F.softmax(np.zeros((2, 3), np.float32), axis=axis)


def test_axis_must_be_an_int():
    with pytest.raises(TypeError, match='softmax: axis must be an int'):
        F.softmax(np.zeros((2, 3), np.float32), axis=(0, 1))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match='x.dtype.kind'):
        F.softmax(np.zeros((2, 3), np.int32))


@pytest.mark.parametrize('shape', [(2, 0), (0, 3)])
def test_empty_input(shape):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = F.softmax(np.zeros(shape, np.float32))
    assert y.shape == shape and y.dtype == np.float32
