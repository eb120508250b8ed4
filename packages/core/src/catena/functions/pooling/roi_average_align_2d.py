"""``roi_average_align_2d``: ROI Align (Mask R-CNN) with average pooling of the samples."""

from __future__ import annotations

from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions.pooling import _roi
from catena.variable import Variable


class ROIAverageAlign2D(FunctionNode):
    """ROI average align over a set of 2-D planes."""

    def __init__(self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None) -> None:
        self.outh, self.outw = _roi.outsize_pair(outsize)
        self.spatial_scale = _roi.positive_scale(spatial_scale)
        self.sampling_ratio = _roi.sampling_pair(sampling_ratio)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        height, width = x.shape[2:]
        batch = _roi.batch_indices(roi_indices, x.shape[0], 'roi_indices')
        coords = rois.astype(numpy.float64)
        rows = _roi.SampleTaps(coords[:, 0], coords[:, 2], self.spatial_scale, self.outh,
                               self.sampling_ratio[0], height)
        cols = _roi.SampleTaps(coords[:, 1], coords[:, 3], self.spatial_scale, self.outw,
                               self.sampling_ratio[1], width)
        self.roi_map = _roi.SeparableMap.from_samples(batch, rows, cols, x.shape, x.dtype)
        return self.roi_map.apply(x),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gx = ROIAverageAlign2DGrad(self.roi_map).apply(grad_outputs)[0]
        return _roi.x_grad_only(indexes, gx)


class ROIAverageAlign2DGrad(_roi.ROIMapGrad):
    """The gradient of :class:`ROIAverageAlign2D` for ``x``: spreads ``gy`` over the samples."""


def roi_average_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                         spatial_scale: Any, sampling_ratio: Any = None) -> Variable:
    """Spatial Region of Interest (ROI) average align function.

    Each ROI is split into ``outsize`` equal bins without rounding its
    coordinates. A bin's value is the mean of ``x`` sampled bilinearly at a
    regular grid of points inside it (the centres of equal sub-bins). Points
    more than one pixel outside the image count as zero; the others read
    the nearest pixels, clamped to the image. A ROI smaller than one pixel
    is treated as one pixel wide.

    Args:
        x: Input of shape ``(N, C, H, W)``, floating point.
        rois: ROIs of shape ``(R, 4)``, each ``(y_min, x_min, y_max, x_max)``
            in the coordinates that ``spatial_scale`` maps to pixels of
            ``x``; the same dtype as ``x``.
        roi_indices: The batch index of each ROI, int32 of shape ``(R,)``.
        outsize: The output size ``(outh, outw)``; an int ``o`` means ``(o, o)``.
        spatial_scale: The factor from ROI coordinates to pixels of ``x``
            (e.g. ``1 / 16`` for a feature map of stride 16).
        sampling_ratio: Sample points per bin along ``(height, width)``, an
            int or a pair; None (on an axis) uses ``ceil(roi_size / outsize)``
            points, computed per ROI.

    Returns:
        Variable: The pooled features of shape ``(R, C, outh, outw)``.

    Raises:
        InvalidType: If the shapes or dtypes of ``x``, ``rois`` and
            ``roi_indices`` do not fit together.
        ValueError: If a ROI's batch index is outside ``[0, N)``, or an
            argument is out of range (TypeError if it has a wrong type).

    Gradients flow to ``x`` only (also to second order). See
    `Mask R-CNN <https://arxiv.org/abs/1703.06870>`_.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], dtype=np.float32)
        >>> F.roi_average_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.  ,  6.75],
                 [12.  , 13.75]]]], dtype=float32)
    """
    node = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
