"""roi_pooling_2d (the (R, 5) interface, both ends inside the ROI), against a direct loop."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

# (batch_index, x_min, y_min, x_max, y_max) on a 6x5 image: inside, halves that
# round to even, partly above/left, partly below/right, degenerate, entirely outside.
ROIS = np.array([
    [0, 0.0, 0.0, 4.6, 5.0],
    [1, 0.5, 1.5, 3.5, 4.4],
    [1, -2.0, -3.0, 1.4, 2.5],
    [0, 2.9, 3.6, 8.0, 9.5],
    [1, 3.1, 2.2, 2.4, 1.0],
    [0, -9.0, -9.0, -6.0, -5.0],
])
X_SHAPE = (2, 2, 6, 5)


def _bins(low, high, out, size):
    """The [begin, end) pixel ranges of the ``out`` bins of one axis (``high`` included)."""
    extent = max(high - low + 1, 1)
    step = extent / out
    return [(min(max(math.floor(i * step) + low, 0), size),
             min(max(math.ceil((i + 1) * step) + low, 0), size)) for i in range(out)]


def reference(x, rois, outh, outw, scale):
    height, width = x.shape[2:]
    y = np.zeros((len(rois), x.shape[1], outh, outw), x.dtype)
    for r, roi in enumerate(rois):
        batch = int(roi[0])
        x0, y0, x1, y1 = (round(float(v) * scale) for v in roi[1:])
        for ph, (hs, he) in enumerate(_bins(y0, y1, outh, height)):
            for pw, (ws, we) in enumerate(_bins(x0, x1, outw, width)):
                if he > hs and we > ws:
                    y[r, :, ph, pw] = x[batch, :, hs:he, ws:we].max(axis=(1, 2))
    return y


def _distinct(shape, dtype):
    size = int(np.prod(shape))
    return (np.random.permutation(size) * (2.0 / size) - 1.0).reshape(shape).astype(dtype)


@testing.parameterize(*testing.product_dict(
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'outh': 3, 'outw': 2, 'spatial_scale': 1.0}, {'outh': 2, 'outw': 2, 'spatial_scale': 0.6},
     {'outh': 4, 'outw': 5, 'spatial_scale': 1.3}],
))
class TestROIPooling2D(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def setUp(self):
        self.rois = ROIS.astype(self.dtype)

    def generate_inputs(self):
        return _distinct(X_SHAPE, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        # The numerical gradient runs in float64, and rois must match x's dtype.
        rois = device.send_array(self.rois.astype(x.dtype))
        return F.roi_pooling_2d(x, rois, self.outh, self.outw, self.spatial_scale),

    def forward_expected(self, inputs):
        x, = inputs
        return reference(x, self.rois, self.outh, self.outw, self.spatial_scale),


def test_hand_computed_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    # Pixels 0..3 inclusive: the same bins as roi_max_pooling_2d over 0..4.
    y = F.roi_pooling_2d(x, np.array([[0, 0, 0, 3, 3]], np.float32), 2, 2, 1.0).array
    np.testing.assert_array_equal(y, [[[[5, 7], [13, 15]]]])
    same = F.roi_max_pooling_2d(x, np.array([[0, 0, 4, 4]], np.float32),
                                np.array([0], np.int32), 2, 1.0).array
    np.testing.assert_array_equal(y, same)


def test_coordinates_are_x_then_y():
    x = np.zeros((1, 1, 4, 6))
    x[0, 0, 1, 5] = 1.0
    # Columns 4..5 and rows 0..1 contain the 1; rows 4..5 would be outside.
    y = F.roi_pooling_2d(x, np.array([[0, 4, 0, 5, 1]], np.float64), 1, 1, 1.0)
    assert y.array[0, 0, 0, 0] == 1.0


def test_batch_index_is_truncated():
    x = np.stack([np.zeros((1, 3, 3)), np.ones((1, 3, 3))])
    y = F.roi_pooling_2d(x, np.array([[0.9, 0, 0, 2, 2], [1.2, 0, 0, 2, 2]]), 1, 1, 1.0)
    np.testing.assert_array_equal(y.array.ravel(), [0, 1])


def test_gradient_reaches_x_only():
    x = catena.Variable(_distinct(X_SHAPE, np.float64) + 2.0)
    rois = catena.Variable(ROIS.copy())
    F.sum(F.roi_pooling_2d(x, rois, 2, 2, 1.0)).backward()
    assert x.grad is not None and rois.grad is None
    # x > 0, so the outputs that are not 0 are the nonempty bins, one unit of gradient each.
    assert x.grad.sum() == np.count_nonzero(reference(x.array, ROIS, 2, 2, 1.0))


@pytest.mark.parametrize('x_shape, rois, pattern', [
    (X_SHAPE, np.zeros((6, 4)), r'rois\.shape\[1\] == 5'),
    (X_SHAPE, np.zeros(5), r'rois\.ndim == 2'),
    (X_SHAPE, ROIS.astype(np.float32), r'rois\.dtype == x\.dtype'),
    ((6, 5), ROIS, r'x\.ndim == 4'),
])
def test_invalid_arrays(x_shape, rois, pattern):
    with pytest.raises(InvalidType, match=pattern):
        F.roi_pooling_2d(np.zeros(x_shape), rois, 2, 2, 1.0)


def test_batch_index_out_of_range():
    rois = ROIS.copy()
    rois[2, 0] = 2
    with pytest.raises(ValueError, match=r'rois\[:, 0\].*must lie in \[0, 2\)'):
        F.roi_pooling_2d(np.zeros(X_SHAPE), rois, 2, 2, 1.0)


@pytest.mark.parametrize('outh, outw, scale, error, pattern', [
    (0, 2, 1.0, ValueError, 'outh'),
    (2, 2.5, 1.0, TypeError, 'outw'),
    (2, 2, -1.0, ValueError, 'spatial_scale'),
])
def test_invalid_arguments(outh, outw, scale, error, pattern):
    with pytest.raises(error, match=pattern):
        F.roi_pooling_2d(np.zeros(X_SHAPE), ROIS, outh, outw, scale)


def test_class_names():
    x = catena.Variable(_distinct(X_SHAPE, np.float64))
    y = F.roi_pooling_2d(x, ROIS, 2, 2, 1.0)
    assert type(y.creator).__name__ == 'ROIPooling2D'
    gx, = catena.grad([y], [x], [catena.Variable(np.ones(y.shape))],
                      enable_double_backprop=True)
    assert type(gx.creator).__name__ == 'ROIPooling2DGrad'
