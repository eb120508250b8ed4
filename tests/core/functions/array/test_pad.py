"""pad: numpy.pad modes, with gradients for the constant and copying modes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils import type_check


def _pad_constant(x, widths, value):
    widths = np.broadcast_to(np.asarray(widths), (x.ndim, 2))
    shape = tuple(int(b + n + a) for (b, a), n in zip(widths, x.shape))
    y = np.full(shape, value, dtype=x.dtype)
    y[tuple(slice(int(b), int(b) + n) for (b, _), n in zip(widths, x.shape))] = x
    return y


@testing.parameterize(*testing.product({
    'shape_width': [((2, 3), 1), ((2, 3), (1, 2)), ((2, 3), ((0, 1), (2, 0))), ((3,), 2),
                    ((1, 2, 2), ((1, 0), (0, 0), (1, 1))), ((), 1), ((), 0)],
    'constant_values': [None, 1.5],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestPadConstant(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_width[0]).astype(self.dtype),

    def forward(self, inputs, device):
        keywords = {} if self.constant_values is None else {
            'constant_values': self.constant_values}
        return F.pad(inputs[0], self.shape_width[1], 'constant', **keywords),

    def forward_expected(self, inputs):
        return _pad_constant(inputs[0], self.shape_width[1], self.constant_values or 0),


@testing.parameterize(*testing.product({
    'mode': ['edge', 'reflect', 'symmetric', 'wrap'],
    'shape_width': [((2, 3), ((1, 2), (3, 1))), ((3,), 4)],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestPadCopyingModes(testing.FunctionTestCase):
    # Each output element copies one input element; forward_expected maps the
    # indexes itself, and the gradient check covers the summed copies.

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape_width[0]).astype(self.dtype),

    def forward(self, inputs, device):
        return F.pad(inputs[0], self.shape_width[1], self.mode),

    def forward_expected(self, inputs):
        x, = inputs
        widths = np.broadcast_to(np.asarray(self.shape_width[1]), (x.ndim, 2))
        axes = [[_source(i - int(b), n, self.mode) for i in range(int(b + n + a))]
                for (b, a), n in zip(widths, x.shape)]
        return x[np.ix_(*axes)],


def _source(i, n, mode):
    """The input index that output index ``i`` (relative to the data) copies."""
    if mode == 'edge':
        return min(max(i, 0), n - 1)
    if mode == 'wrap':
        return i % n
    period = 2 * n - 2 if mode == 'reflect' else 2 * n
    i %= period
    if mode == 'reflect':
        return i if i < n else period - i
    return i if i < n else period - 1 - i


def test_value_dependent_modes_have_no_backward():
    x = catena.Variable(np.random.rand(2, 3))
    y = F.pad(x, 1, 'mean')
    np.testing.assert_allclose(y.array, np.pad(x.array, 1, mode='mean'))
    y.grad = np.ones_like(y.array)
    with pytest.raises(NotImplementedError, match="got mode 'mean'"):
        y.backward()


def test_odd_reflection_has_no_backward():
    x = catena.Variable(np.random.rand(3))
    y = F.pad(x, 1, 'reflect', reflect_type='odd')
    y.grad = np.ones_like(y.array)
    with pytest.raises(NotImplementedError, match='reflect_type'):
        y.backward()


@pytest.mark.parametrize('pad_width', [((1, 2), (3, 4), (5, 6)), -1, 1.5, 'a'])
def test_bad_pad_width(pad_width):
    with pytest.raises(ValueError, match='pad_width'):
        F.pad(np.zeros((2, 3), np.float32), pad_width, 'constant')


def test_integer_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=r'x\.dtype\.kind == f'):
        F.pad(np.zeros(3, np.int32), 1, 'constant')


@pytest.mark.parametrize('mode', ['constant', 'edge', 'reflect', 'symmetric', 'wrap'])
def test_a_scalar_has_no_axis_to_pad(mode):
    x = catena.Variable(np.array(1.5, np.float32))
    y = F.pad(x, 2, mode)
    assert y.shape == () and y.array == 1.5
    y.grad = np.array(3.0, np.float32)
    y.backward()
    assert x.grad == 3.0
