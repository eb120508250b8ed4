"""roi_average_align_2d: bilinear samples averaged per bin, against a direct loop."""

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


def _ratio_pair(ratio):
    return tuple(ratio) if isinstance(ratio, tuple) else (ratio, ratio)


def reference(x, rois, roi_indices, outsize, scale, ratio):
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    ratio_h, ratio_w = _ratio_pair(ratio)
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
                total = np.zeros(x.shape[1])
                for iy in range(grid_h):
                    sy = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        sx = x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        value = _sample(plane, sy, sx)
                        if value is not None:
                            total += value
                y[r, :, ph, pw] = total / (grid_h * grid_w)
    return y.astype(x.dtype)


@testing.parameterize(*testing.product_dict(
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'sampling_ratio': None}, {'sampling_ratio': 2}, {'sampling_ratio': (1, 3)}],
    [{'outsize': (3, 2), 'spatial_scale': 1.0}, {'outsize': 2, 'spatial_scale': 0.6}],
))
class TestROIAverageAlign2D(testing.FunctionTestCase):

    def setUp(self):
        self.rois = ROIS.astype(self.dtype)
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, X_SHAPE).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        # The numerical gradient runs in float64, and rois must match x's dtype.
        rois = device.send_array(self.rois.astype(x.dtype))
        roi_indices = device.send_array(ROI_INDICES)
        return F.roi_average_align_2d(x, rois, roi_indices, self.outsize, self.spatial_scale,
                                      self.sampling_ratio),

    def forward_expected(self, inputs):
        x, = inputs
        return reference(x, self.rois, ROI_INDICES, self.outsize, self.spatial_scale,
                         self.sampling_ratio),


def _run(x, rois=ROIS, roi_indices=ROI_INDICES, outsize=2, scale=1.0, ratio=None):
    return F.roi_average_align_2d(x, rois.astype(x.dtype), roi_indices, outsize, scale, ratio)


def test_hand_computed_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 4, 4]], np.float32)
    # Samples at 0.5 and 1.5 (first bin), 2.5 and 3.5 -> 3 (second bin, clamped).
    y = F.roi_average_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
    np.testing.assert_array_equal(y, [[[[5.0, 6.75], [12.0, 13.75]]]])


def test_roi_outside_gives_zero_and_no_gradient():
    x = catena.Variable(np.random.uniform(1, 2, (1, 2, 4, 4)).astype(np.float32))
    rois = np.array([[-9, -9, -5, -6], [10, 10, 14, 16]], np.float32)
    y = F.roi_average_align_2d(x, rois, np.array([0, 0], np.int32), 3, 1.0)
    np.testing.assert_array_equal(y.array, np.zeros((2, 2, 3, 3), np.float32))
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.zeros_like(x.array))


def test_gradient_reaches_x_only():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE))
    rois = catena.Variable(ROIS.copy())
    y = F.roi_average_align_2d(x, rois, ROI_INDICES, 2, 1.0)
    F.sum(y).backward()
    assert x.grad is not None and rois.grad is None
    # Every in-image sample passes its full weight on: the gradient of a sum
    # counts, per ROI, the share of samples that fall inside the image.
    assert np.all(x.grad >= 0)


def _value_and_grad(x, gy):
    xv = catena.Variable(x)
    y = F.roi_average_align_2d(xv, ROIS, ROI_INDICES, 3, 0.8, 2)
    y.grad = gy
    y.backward()
    return y.array, xv.grad


def test_chunked_windows_match(monkeypatch):
    x = np.random.uniform(-1, 1, X_SHAPE)
    gy = np.random.uniform(-1, 1, (len(ROIS), 2, 3, 3))
    y_whole, gx_whole = _value_and_grad(x, gy)
    monkeypatch.setattr(_roi, '_CHUNK_ELEMENTS', 1)   # one ROI per chunk
    y_chunked, gx_chunked = _value_and_grad(x, gy)
    np.testing.assert_allclose(y_whole, y_chunked, rtol=0, atol=1e-14)
    np.testing.assert_allclose(gx_whole, gx_chunked, rtol=0, atol=1e-14)


def test_no_rois():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE).astype(np.float32))
    y = F.roi_average_align_2d(x, np.zeros((0, 4), np.float32), np.zeros(0, np.int32),
                               (2, 3), 1.0)
    assert y.shape == (0, 2, 2, 3)
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.zeros(X_SHAPE, np.float32))


def test_large_sampling_ratio_matches_reference():
    x = np.random.uniform(-1, 1, X_SHAPE)
    y = _run(x, outsize=(1, 2), scale=0.7, ratio=(7, 5)).array
    np.testing.assert_allclose(y, reference(x, ROIS, ROI_INDICES, (1, 2), 0.7, (7, 5)),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('rois, indices, pattern', [
    (np.zeros((6, 5)), ROI_INDICES, r'rois\.shape\[1\] == 4'),
    (np.zeros((6,)), ROI_INDICES, r'rois\.ndim == 2'),
    (ROIS, ROI_INDICES.astype(np.int64), r'roi_indices\.dtype == '),
    (ROIS, ROI_INDICES[:5], r'rois\.shape\[0\] == roi_indices\.shape\[0\]'),
    (ROIS.astype(np.float32), ROI_INDICES, r'rois\.dtype == x\.dtype'),
])
def test_invalid_roi_arrays(rois, indices, pattern):
    x = np.zeros(X_SHAPE)
    with pytest.raises(InvalidType, match=pattern):
        F.roi_average_align_2d(x, rois, indices, 2, 1.0)


def test_invalid_x():
    with pytest.raises(InvalidType, match=r'x\.ndim == 4'):
        F.roi_average_align_2d(np.zeros((2, 6, 5)), ROIS, ROI_INDICES, 2, 1.0)
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind'):
        F.roi_average_align_2d(np.zeros(X_SHAPE, np.int32), ROIS.astype(np.int32),
                               ROI_INDICES, 2, 1.0)


@pytest.mark.parametrize('index', [-1, 2])
def test_batch_index_out_of_range(index):
    indices = ROI_INDICES.copy()
    indices[3] = index
    with pytest.raises(ValueError, match=r'roi_indices must lie in \[0, 2\)'):
        F.roi_average_align_2d(np.zeros(X_SHAPE), ROIS, indices, 2, 1.0)


@pytest.mark.parametrize('kwargs, error, pattern', [
    ({'outsize': 0}, ValueError, r'outsize\[0\]'),
    ({'outsize': (2, -1)}, ValueError, r'outsize\[1\]'),
    ({'outsize': 1.5}, TypeError, r'outsize\[0\]'),
    ({'outsize': (1, 2, 3)}, ValueError, 'outsize'),
    ({'spatial_scale': 0.0}, ValueError, 'spatial_scale'),
    ({'spatial_scale': '1'}, TypeError, 'spatial_scale'),
    ({'sampling_ratio': 0}, ValueError, r'sampling_ratio\[0\]'),
    ({'sampling_ratio': (2, 1.5)}, TypeError, r'sampling_ratio\[1\]'),
])
def test_invalid_arguments(kwargs, error, pattern):
    arguments = {'outsize': 2, 'spatial_scale': 1.0, 'sampling_ratio': None, **kwargs}
    with pytest.raises(error, match=pattern):
        F.roi_average_align_2d(np.zeros(X_SHAPE), ROIS, ROI_INDICES, **arguments)


def test_integer_spatial_scale_and_ratio_pairs_accepted():
    x = np.random.uniform(-1, 1, X_SHAPE)
    y = F.roi_average_align_2d(x, ROIS, ROI_INDICES, [2, 3], 1, [None, 2]).array
    np.testing.assert_allclose(y, reference(x, ROIS, ROI_INDICES, (2, 3), 1.0, (None, 2)),
                               rtol=1e-12, atol=1e-12)


def test_class_names():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE))
    y = F.roi_average_align_2d(x, ROIS, ROI_INDICES, 2, 1.0)
    assert type(y.creator).__name__ == 'ROIAverageAlign2D'
    gy = catena.Variable(np.ones(y.shape))
    gx, = catena.grad([y], [x], [gy], enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'ROIAverageAlign2DGrad'
    assert issubclass(type(gx.creator), _roi.ROIMapGrad)
