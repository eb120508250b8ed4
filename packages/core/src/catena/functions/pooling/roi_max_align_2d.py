"""``roi_max_align_2d``: ROI Align (Mask R-CNN) with max pooling of the samples."""

from __future__ import annotations

from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions.pooling import _roi
from catena.variable import Variable


class ROIMaxAlign2D(FunctionNode):
    """ROI max align over a set of 2-D planes."""

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
        y, self.roi_map = _roi.max_over_samples(x, batch, rows, cols)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gx = ROIMaxAlign2DGrad(self.roi_map).apply(grad_outputs)[0]
        return _roi.x_grad_only(indexes, gx)


class ROIMaxAlign2DGrad(_roi.ROIMapGrad):
    """The gradient of :class:`ROIMaxAlign2D` for ``x``: ``gy`` to the winning samples."""


def roi_max_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                     spatial_scale: Any, sampling_ratio: Any = None) -> Variable:
    """Spatial Region of Interest (ROI) max align function.

    Like :func:`roi_average_align_2d`, but a bin's value is the largest of
    its bilinear samples instead of their mean. Samples more than one pixel
    outside the image are skipped; a bin with no sample left is 0 and passes
    no gradient.

    Args:
        x: Input of shape ``(N, C, H, W)``, floating point.
        rois: ROIs of shape ``(R, 4)``, each ``(y_min, x_min, y_max, x_max)``;
            the same dtype as ``x``.
        roi_indices: The batch index of each ROI, int32 of shape ``(R,)``.
        outsize: The output size ``(outh, outw)``; an int ``o`` means ``(o, o)``.
        spatial_scale: The factor from ROI coordinates to pixels of ``x``.
        sampling_ratio: Sample points per bin along ``(height, width)``, an
            int or a pair; None (on an axis) uses ``ceil(roi_size / outsize)``.

    Returns:
        Variable: The pooled features of shape ``(R, C, outh, outw)``.

    Raises:
        InvalidType: If the shapes or dtypes of ``x``, ``rois`` and
            ``roi_indices`` do not fit together.
        ValueError: If a ROI's batch index is outside ``[0, N)``, or an
            argument is out of range (TypeError if it has a wrong type).

    The gradient reaches the four pixels around each bin's winning sample,
    weighted as in the interpolation.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], dtype=np.float32)
        >>> F.roi_max_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 7.5,  9. ],
                 [13.5, 15. ]]]], dtype=float32)
    """
    node = ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
