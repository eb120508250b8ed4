"""roi_average_pooling_2d: the mean over rounded, floor/ceil bins, against a direct loop."""

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

# (y_min, x_min, y_max, x_max) on a 6x5 image: inside, halves that round to even,
# partly above/left, partly below/right, degenerate (max < min), entirely outside.
ROIS = np.array([
    [0.0, 0.0, 5.0, 4.6],
    [1.5, 0.5, 4.4, 3.5],
    [-3.0, -2.0, 2.5, 1.4],
    [3.6, 2.9, 9.5, 8.0],
    [2.2, 3.1, 1.0, 2.4],
    [-9.0, -9.0, -5.0, -6.0],
])
ROI_INDICES = np.array([0, 1, 1, 0, 1, 0], np.int32)
X_SHAPE = (2, 2, 6, 5)


def _bins(low, high, out, size):
    """The [begin, end) pixel ranges of the ``out`` bins of one axis."""
    extent = max(high - low, 1)
    step = extent / out
    return [(min(max(math.floor(i * step) + low, 0), size),
             min(max(math.ceil((i + 1) * step) + low, 0), size)) for i in range(out)]


def reference(x, rois, roi_indices, outsize, scale):
    outh, outw = outsize if isinstance(outsize, tuple) else (outsize, outsize)
    height, width = x.shape[2:]
    y = np.zeros((len(rois), x.shape[1], outh, outw))
    for r, roi in enumerate(rois):
        y0, x0, y1, x1 = (round(float(v) * scale) for v in roi)
        for ph, (hs, he) in enumerate(_bins(y0, y1, outh, height)):
            for pw, (ws, we) in enumerate(_bins(x0, x1, outw, width)):
                if he > hs and we > ws:
                    patch = x[roi_indices[r], :, hs:he, ws:we].astype(np.float64)
                    y[r, :, ph, pw] = patch.sum(axis=(1, 2)) / ((he - hs) * (we - ws))
    return y.astype(x.dtype)


@testing.parameterize(*testing.product_dict(
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'outsize': (3, 2), 'spatial_scale': 1.0}, {'outsize': 2, 'spatial_scale': 0.6},
     {'outsize': (4, 5), 'spatial_scale': 1.3}],
))
class TestROIAveragePooling2D(testing.FunctionTestCase):

    def setUp(self):
        self.rois = ROIS.astype(self.dtype)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, X_SHAPE).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        # The numerical gradient runs in float64, and rois must match x's dtype.
        rois = device.send_array(self.rois.astype(x.dtype))
        roi_indices = device.send_array(ROI_INDICES)
        return F.roi_average_pooling_2d(x, rois, roi_indices, self.outsize,
                                        self.spatial_scale),

    def forward_expected(self, inputs):
        x, = inputs
        return reference(x, self.rois, ROI_INDICES, self.outsize, self.spatial_scale),


def test_hand_computed_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    y = F.roi_average_pooling_2d(x, np.array([[0, 0, 4, 4]], np.float32),
                                 np.array([0], np.int32), 2, 1.0).array
    np.testing.assert_array_equal(y, [[[[2.5, 4.5], [10.5, 12.5]]]])


def test_gradient_is_spread_evenly_over_each_bin():
    x = catena.Variable(np.zeros((1, 1, 4, 4)))
    # Rows and columns -1..3 clipped to 0..3: bins [0, 1) and [1, 3) per axis.
    y = F.roi_average_pooling_2d(x, np.array([[-1.0, -1.0, 3.0, 3.0]]),
                                 np.array([0], np.int32), 2, 1.0)
    y.grad = np.array([[[[1.0, 2.0], [4.0, 8.0]]]])
    y.backward()
    # Each bin passes gy / (its pixel count) to its pixels: 1/1, 2/2, 4/2 and 8/4.
    expected = np.zeros((4, 4))
    expected[:3, :3] = [[1, 1, 1], [2, 2, 2], [2, 2, 2]]
    np.testing.assert_array_equal(x.grad[0, 0], expected)


def test_empty_bins_give_zero_and_no_gradient():
    x = catena.Variable(np.random.uniform(1, 2, (1, 2, 4, 4)))
    rois = np.array([[2.0, 0.0, 8.0, 4.0], [-9.0, -9.0, -5.0, -6.0]])
    y = F.roi_average_pooling_2d(x, rois, np.array([0, 0], np.int32), (3, 1), 1.0)
    assert np.all(y.array[0, :, 0] > 1)
    np.testing.assert_array_equal(y.array[0, :, 1:], 0)
    np.testing.assert_array_equal(y.array[1], 0)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert x.grad.sum() == pytest.approx(2.0)


def test_gradient_reaches_x_only():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE))
    rois = catena.Variable(ROIS.copy())
    F.sum(F.roi_average_pooling_2d(x, rois, ROI_INDICES, 2, 1.0)).backward()
    assert x.grad is not None and rois.grad is None


def _value_and_grad(x, gy):
    xv = catena.Variable(x)
    y = F.roi_average_pooling_2d(xv, ROIS, ROI_INDICES, 3, 0.8)
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
    y = F.roi_average_pooling_2d(x, np.zeros((0, 4), np.float32), np.zeros(0, np.int32),
                                 (1, 3), 1.0)
    assert y.shape == (0, 2, 1, 3)
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.zeros(X_SHAPE, np.float32))


@pytest.mark.parametrize('x_shape, rois, indices, pattern', [
    (X_SHAPE, np.zeros((6, 3)), ROI_INDICES, r'rois\.shape\[1\] == 4'),
    (X_SHAPE, ROIS, ROI_INDICES.astype(np.float32), r'roi_indices\.dtype == '),
    (X_SHAPE, ROIS, ROI_INDICES[:4], r'rois\.shape\[0\] == roi_indices\.shape\[0\]'),
    (X_SHAPE, ROIS.astype(np.float16), ROI_INDICES, r'rois\.dtype == x\.dtype'),
    ((1, 2, 2, 6, 5), ROIS, ROI_INDICES, r'x\.ndim == 4'),
])
def test_invalid_arrays(x_shape, rois, indices, pattern):
    with pytest.raises(InvalidType, match=pattern):
        F.roi_average_pooling_2d(np.zeros(x_shape), rois, indices, 2, 1.0)


def test_batch_index_out_of_range():
    with pytest.raises(ValueError, match=r'roi_indices must lie in \[0, 1\)'):
        F.roi_average_pooling_2d(np.zeros((1,) + X_SHAPE[1:]), ROIS, ROI_INDICES, 2, 1.0)


@pytest.mark.parametrize('outsize, scale, error, pattern', [
    (-2, 1.0, ValueError, r'outsize\[0\]'),
    ((2, '3'), 1.0, TypeError, r'outsize\[1\]'),
    (2, -0.5, ValueError, 'spatial_scale'),
])
def test_invalid_arguments(outsize, scale, error, pattern):
    with pytest.raises(error, match=pattern):
        F.roi_average_pooling_2d(np.zeros(X_SHAPE), ROIS, ROI_INDICES, outsize, scale)


def test_class_names():
    x = catena.Variable(np.random.uniform(-1, 1, X_SHAPE))
    y = F.roi_average_pooling_2d(x, ROIS, ROI_INDICES, 2, 1.0)
    assert type(y.creator).__name__ == 'ROIAveragePooling2D'
    gx, = catena.grad([y], [x], [catena.Variable(np.ones(y.shape))],
                      enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'ROIAveragePooling2DGrad'
