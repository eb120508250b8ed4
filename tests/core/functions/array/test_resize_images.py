"""resize_images."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _with_dtypes(params):
    """Every case in float32; the first case also in float16 and float64."""
    first = {key: values[:1] for key, values in params.items()}
    return (testing.product({**params, 'dtype': [np.float32]})
            + testing.product({**first, 'dtype': [np.float16, np.float64]}))


def _source(i, in_size, out_size, mode, align_corners):
    """The source position of output pixel ``i`` along one axis."""
    if mode == 'nearest':
        return float(min(math.floor(i * in_size / out_size), in_size - 1))
    if align_corners:
        return i * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return max((i + 0.5) * in_size / out_size - 0.5, 0.0)


def _reference(x, out_shape, mode, align_corners):
    n, c, h, w = x.shape
    out_h, out_w = out_shape
    x64 = x.astype(np.float64)
    y = np.zeros((n, c, out_h, out_w))
    for i in range(out_h):
        sy = _source(i, h, out_h, mode, align_corners)
        y0 = math.floor(sy)
        y1, fy = min(y0 + 1, h - 1), sy - y0
        for j in range(out_w):
            sx = _source(j, w, out_w, mode, align_corners)
            x0 = math.floor(sx)
            x1, fx = min(x0 + 1, w - 1), sx - x0
            y[:, :, i, j] = ((1 - fy) * (1 - fx) * x64[:, :, y0, x0]
                             + (1 - fy) * fx * x64[:, :, y0, x1]
                             + fy * (1 - fx) * x64[:, :, y1, x0]
                             + fy * fx * x64[:, :, y1, x1])
    return y.astype(x.dtype)


@testing.parameterize(*_with_dtypes({
    'shapes': [
        ((2, 3, 4, 5), (7, 9)),    # up
        ((1, 2, 6, 7), (3, 2)),    # down
        ((1, 2, 4, 3), (2, 6)),    # mixed
        ((1, 1, 1, 1), (2, 3)),
        ((1, 2, 3, 4), (3, 4)),    # same size
        ((2, 1, 3, 3), (1, 1)),
    ],
    'mode_align': [('bilinear', True), ('bilinear', False), ('nearest', True)],
}))
class TestResizeImages(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-3, 'rtol': 2e-3}
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-3}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shapes[0]).astype(self.dtype),

    def forward(self, inputs, device):
        mode, align = self.mode_align
        return F.resize_images(inputs[0], self.shapes[1], mode=mode, align_corners=align),

    def forward_expected(self, inputs):
        mode, align = self.mode_align
        return _reference(inputs[0], self.shapes[1], mode, align),


def test_linear_ramp_stays_linear_with_aligned_corners():
    rows, cols = np.meshgrid(np.arange(4.0), np.arange(5.0), indexing='ij')
    x = (2 * rows + 3 * cols)[None, None]
    y = F.resize_images(x, (7, 9)).array[0, 0]
    out_rows, out_cols = np.meshgrid(np.linspace(0, 3, 7), np.linspace(0, 4, 9), indexing='ij')
    np.testing.assert_allclose(y, 2 * out_rows + 3 * out_cols, atol=1e-12)


def test_known_values():
    x = np.array([[[[0.0, 1.0], [2.0, 3.0]]]])
    # Half-pixel centres: the one output row sits halfway between the input rows.
    np.testing.assert_allclose(F.resize_images(x, (1, 4), align_corners=False).array,
                               [[[[1.0, 1.25, 1.75, 2.0]]]])
    np.testing.assert_array_equal(F.resize_images(x, (3, 3), mode='nearest').array,
                                  [[[[0, 0, 1], [0, 0, 1], [2, 2, 3]]]])


def test_gradient_of_nearest_collects_copies():
    x = catena.Variable(np.zeros((1, 1, 2, 2)))
    y = F.resize_images(x, (4, 4), mode='nearest')
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, np.full((1, 1, 2, 2), 4.0))


def test_mode_and_align_corners_are_keyword_only():
    with pytest.raises(TypeError):
        F.resize_images(np.zeros((1, 1, 2, 2)), (3, 3), 'nearest')


def test_wrong_ndim_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.ndim == 4'):
        F.resize_images(np.zeros((1, 2, 2)), (3, 3))


def test_integer_input_is_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.resize_images(np.zeros((1, 1, 2, 2), np.int32), (3, 3))


@pytest.mark.parametrize('shape', [(3,), (0, 2), (2, -1), (2.0, 3)])
def test_bad_output_shape_is_rejected(shape):
    with pytest.raises(ValueError, match='output_shape must be a pair of positive ints'):
        F.resize_images(np.zeros((1, 1, 2, 2)), shape)


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="mode must be 'bilinear' or 'nearest'; got 'cubic'"):
        F.resize_images(np.zeros((1, 1, 2, 2)), (3, 3), mode='cubic')
