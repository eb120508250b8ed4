"""roi_max_align_2d: the largest bilinear sample per bin, against a direct loop."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.pooling import _roi
from catena.utils.type_check import InvalidType

# (y_min, x_min, y_max, x_max) on a 6x5 image: inside, inside with fractions,
# partly above/left, partly below/right, degenerate (max < min), entirely outside.
ROIS = np.array([
    [0.3, 0.2, 5.1, 4.6],
    [1.2, 0.7, 4.6, 3.3],
    [-3.0, -2.0, 2.5, 1.4],
    [3.6, 2.9, 9.5, 8.0],
    [2.2, 3.1, 1.0, 2.4],
    [-9.0, -9.0, -5.0, -6.0],
])
ROI_INDICES = np.array([0, 1, 1, 0, 1, 0], np.int32)
X_SHAPE = (2, 2, 6, 5)


def _point(p, size):
    """Where a sample at ``p`` reads on an axis of ``size``: None, or (p, low, high)."""
    if p < -1.0 or p > size:
        return None
    p = max(p, 0.0)
    low = int(math.floor(p))
    if low >= size - 1:
        return float(size - 1), size - 1, size - 1
    return p, low, low + 1


def _sample(plane, y, x):
    """``plane`` (C, H, W) interpolated at (y, x), or None outside."""
    height, width = plane.shape[1:]
    py, px = _point(y, height), _point(x, width)
    if py is None or px is None:
        return None
    y, y0, y1 = py
    x, x0, x1 = px
    dy, dx = y - y0, x - x0
    return ((1 - dy) * (1 - dx) * plane[:, y0, x0] + (1 - dy) * dx * plane[:, y0, x1]
            + dy * (1 - dx) * plane[:, y1, x0] + dy * dx * plane[:, y1, x1])


def reference(x, rois, roi_indices, outsize, scale, ratio):
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    ratio_h, ratio_w = tuple(ratio) if isinstance(ratio, tuple) else (ratio, ratio)
    xd = x.astype(np.float64)
    y = np.zeros((len(rois), x.shape[1], outh, outw))
    for r, (y0, x0, y1, x1) in enumerate(rois.astype(np.float64) * scale):
        plane = xd[roi_indices[r]]
        height, width = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        bin_h, bin_w = height / outh, width / outw
        grid_h = ratio_h or int(math.ceil(height / outh))
        grid_w = ratio_w or int(math.ceil(width / outw))
        for ph in range(outh):
            for pw in range(outw):
                samples = []
                for iy in range(grid_h):
                    sy = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        sx = x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        value = _sample(plane, sy, sx)
                        if value is not None:
                            samples.append(value)
                if samples:
                    y[r, :, ph, pw] = np.max(samples, axis=0)
    return y.astype(x.dtype)


def _distinct(shape, dtype):
    """Values far apart (no near ties between samples of different pixels)."""
    size = int(np.prod(shape))
    return (np.random.permutation(size) * (2.0 / size) - 1.0).reshape(shape).astype(dtype)


@testing.parameterize(*testing.product_dict(
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'sampling_ratio': None}, {'sampling_ratio': 2}, {'sampling_ratio': (1, 3)}],
    [{'outsize': (3, 2), 'spatial_scale': 1.0}, {'outsize': 2, 'spatial_scale': 0.6}],
))
class TestROIMaxAlign2D(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def setUp(self):
        self.rois = ROIS.astype(self.dtype)
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return _distinct(X_SHAPE, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        # The numerical gradient runs in float64, and rois must match x's dtype.
        rois = device.send_array(self.rois.astype(x.dtype))
        roi_indices = device.send_array(ROI_INDICES)
        return F.roi_max_align_2d(x, rois, roi_indices, self.outsize, self.spatial_scale,
                                  self.sampling_ratio),

    def forward_expected(self, inputs):
        x, = inputs
        return reference(x, self.rois, ROI_INDICES, self.outsize, self.spatial_scale,
                         self.sampling_ratio),


def test_hand_computed_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 4, 4]], np.float32)
    y = F.roi_max_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
    # The last sample of each bin wins; 3.5 is clamped to the last pixel, 3.
    np.testing.assert_array_equal(y, [[[[7.5, 9.0], [13.5, 15.0]]]])


def test_gradient_goes_to_the_corners_of_the_winning_sample():
    x = catena.Variable(np.zeros((1, 1, 4, 4)))
    x.array[0, 0, 2:, 2:] = [[1.0, 2.0], [3.0, 4.0]]
    # One bin of side 3.2 sampled at 1.0 and 2.6 on each axis; (2.6, 2.6) wins.
    rois = np.array([[0.2, 0.2, 3.4, 3.4]])
    y = F.roi_max_align_2d(x, rois, np.array([0], np.int32), 1, 1.0, 2)
    assert y.array[0, 0, 0, 0] == pytest.approx(0.16 + 0.24 * 2 + 0.24 * 3 + 0.36 * 4)
    y.grad = np.full(y.shape, 2.0)
    y.backward()
    expected = np.zeros((4, 4))
    expected[2:, 2:] = [[0.32, 0.48], [0.48, 0.72]]
    np.testing.assert_allclose(x.grad[0, 0], expected, atol=1e-15)


def test_bin_without_valid_sample_gives_zero_and_no_gradient():
    x = catena.Variable(np.random.uniform(1, 2, (1, 2, 4, 4)).astype(np.float32))
    # Rows 3..9 on a 4-row image: with 3 bins the last two start past row 5.
    rois = np.array([[3, 0, 9, 4], [-9, -9, -5, -6]], np.float32)
    y = F.roi_max_align_2d(x, rois, np.array([0, 0], np.int32), (3, 1), 1.0)
    assert np.all(y.array[0, :, 0] > 1)
    np.testing.assert_array_equal(y.array[0, :, 1:], 0)
    np.testing.assert_array_equal(y.array[1], 0)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert x.grad.sum() == pytest.approx(2.0)   # one bin per channel passes its gradient


def test_negative_values_are_not_clipped_at_zero():
    x = -np.random.uniform(1, 2, X_SHAPE)
    y = F.roi_max_align_2d(x, ROIS, ROI_INDICES, 2, 1.0).array
    np.testing.assert_allclose(y, reference(x, ROIS, ROI_INDICES, 2, 1.0, None), rtol=1e-12)
    assert np.all(y[:2] < 0)


def _value_and_grad(x, gy):
    xv = catena.Variable(x)
    y = F.roi_max_align_2d(xv, ROIS, ROI_INDICES, 3, 0.8, 2)
    y.grad = gy
    y.backward()
    return y.array, xv.grad


def test_chunked_gather_matches(monkeypatch):
    x = _distinct(X_SHAPE, np.float64)
    gy = np.random.uniform(-1, 1, (len(ROIS), 2, 3, 3))
    y_whole, gx_whole = _value_and_grad(x, gy)
    monkeypatch.setattr(_roi, '_CHUNK_ELEMENTS', 1)   # one ROI per chunk
    y_chunked, gx_chunked = _value_and_grad(x, gy)
    np.testing.assert_array_equal(y_whole, y_chunked)
    np.testing.assert_allclose(gx_whole, gx_chunked, rtol=0, atol=1e-14)


def test_no_rois():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE).astype(np.float32))
    y = F.roi_max_align_2d(x, np.zeros((0, 4), np.float32), np.zeros(0, np.int32), 2, 1.0)
    assert y.shape == (0, 2, 2, 2)
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.zeros(X_SHAPE, np.float32))


@pytest.mark.parametrize('rois, indices, pattern', [
    (np.zeros((6, 5)), ROI_INDICES, r'rois\.shape\[1\] == 4'),
    (ROIS, ROI_INDICES.astype(np.int64), r'roi_indices\.dtype == '),
    (ROIS, ROI_INDICES[:5], r'rois\.shape\[0\] == roi_indices\.shape\[0\]'),
    (ROIS.astype(np.float32), ROI_INDICES, r'rois\.dtype == x\.dtype'),
])
def test_invalid_roi_arrays(rois, indices, pattern):
    with pytest.raises(InvalidType, match=pattern):
        F.roi_max_align_2d(np.zeros(X_SHAPE), rois, indices, 2, 1.0)


def test_batch_index_out_of_range():
    with pytest.raises(ValueError, match=r'roi_indices must lie in \[0, 2\)'):
        F.roi_max_align_2d(np.zeros(X_SHAPE), ROIS, ROI_INDICES + 1, 2, 1.0)


@pytest.mark.parametrize('kwargs, error, pattern', [
    ({'outsize': 0}, ValueError, r'outsize\[0\]'),
    ({'spatial_scale': -1.0}, ValueError, 'spatial_scale'),
    ({'sampling_ratio': (1, 0)}, ValueError, r'sampling_ratio\[1\]'),
    ({'sampling_ratio': True}, TypeError, r'sampling_ratio\[0\]'),
])
def test_invalid_arguments(kwargs, error, pattern):
    arguments = {'outsize': 2, 'spatial_scale': 1.0, 'sampling_ratio': None, **kwargs}
    with pytest.raises(error, match=pattern):
        F.roi_max_align_2d(np.zeros(X_SHAPE), ROIS, ROI_INDICES, **arguments)


def test_class_names():
    x = catena.Variable(_distinct(X_SHAPE, np.float64))
    y = F.roi_max_align_2d(x, ROIS, ROI_INDICES, 2, 1.0)
    assert type(y.creator).__name__ == 'ROIMaxAlign2D'
    gx, = catena.grad([y], [x], [catena.Variable(np.ones(y.shape))],
                      enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'ROIMaxAlign2DGrad'
