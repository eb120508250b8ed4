"""``roi_max_pooling_2d``: max pooling over quantized regions of interest."""

from __future__ import annotations

from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions.pooling import _roi
from catena.variable import Variable


class ROIMaxPooling2D(FunctionNode):
    """ROI max pooling over a set of 2-D planes."""

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        self.outh, self.outw = _roi.outsize_pair(outsize)
        self.spatial_scale = _roi.positive_scale(spatial_scale)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_roi_types(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois, roi_indices = inputs
        height, width = x.shape[2:]
        batch = _roi.batch_indices(roi_indices, x.shape[0], 'roi_indices')
        coords = rois.astype(numpy.float64)
        rows = _roi.quantized_bins(coords[:, 0], coords[:, 2], self.spatial_scale, self.outh,
                                   height, inclusive=False)
        cols = _roi.quantized_bins(coords[:, 1], coords[:, 3], self.spatial_scale, self.outw,
                                   width, inclusive=False)
        y, self.roi_map = _roi.max_over_bins(x, batch, rows, cols)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gx = ROIMaxPooling2DGrad(self.roi_map).apply(grad_outputs)[0]
        return _roi.x_grad_only(indexes, gx)


class ROIMaxPooling2DGrad(_roi.ROIMapGrad):
    """The gradient of :class:`ROIMaxPooling2D` for ``x``: ``gy`` to each bin's maximum."""


def roi_max_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                       spatial_scale: Any) -> Variable:
    """Spatial Region of Interest (ROI) max pooling function.

    Like :func:`roi_average_pooling_2d` (the same rounded ROIs and
    ``floor``/``ceil`` bins), but a bin's value is the maximum of ``x`` over
    it. An empty bin (entirely outside the image) is 0 and passes no
    gradient; among equal maxima the first in row-major order wins.

    Args:
        x: Input of shape ``(N, C, H, W)``, floating point.
        rois: ROIs of shape ``(R, 4)``, each ``(y_min, x_min, y_max, x_max)``;
            the same dtype as ``x``.
        roi_indices: The batch index of each ROI, int32 of shape ``(R,)``.
        outsize: The output size ``(outh, outw)``; an int ``o`` means ``(o, o)``.
        spatial_scale: The factor from ROI coordinates to pixels of ``x``.

    Returns:
        Variable: The pooled features of shape ``(R, C, outh, outw)``.

    Raises:
        InvalidType: If the shapes or dtypes of ``x``, ``rois`` and
            ``roi_indices`` do not fit together.
        ValueError: If a ROI's batch index is outside ``[0, N)``, or an
            argument is out of range (TypeError if it has a wrong type).

    See `Fast R-CNN <https://arxiv.org/abs/1504.08083>`_.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], dtype=np.float32)
        >>> F.roi_max_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    node = ROIMaxPooling2D(outsize, spatial_scale)
    return node.apply((x, rois, roi_indices))[0]
