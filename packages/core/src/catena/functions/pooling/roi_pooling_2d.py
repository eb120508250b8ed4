"""``roi_pooling_2d``: Fast R-CNN's ROI max pooling, with the batch index inside each ROI."""

from __future__ import annotations

from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions.pooling import _roi
from catena.utils import type_check
from catena.variable import Variable


class ROIPooling2D(FunctionNode):
    """ROI (max) pooling over a set of 2-D planes, ROIs given as ``(R, 5)``."""

    def __init__(self, outh: Any, outw: Any, spatial_scale: Any) -> None:
        self.outh = _roi.positive_int(outh, 'outh')
        self.outw = _roi.positive_int(outw, 'outw')
        self.spatial_scale = _roi.positive_scale(spatial_scale)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'rois'))
        x_type, roi_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 4,
            roi_type.dtype == x_type.dtype,
            roi_type.ndim == 2,
            roi_type.shape[1] == 5,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, rois = inputs
        height, width = x.shape[2:]
        coords = rois.astype(numpy.float64)
        # The batch index is stored as a float; it is truncated as int() would.
        batch = _roi.batch_indices(coords[:, 0], x.shape[0], 'rois[:, 0] (the batch indices)')
        # Columns 1-4 are (x_min, y_min, x_max, y_max); both ends are inside the ROI.
        rows = _roi.quantized_bins(coords[:, 2], coords[:, 4], self.spatial_scale, self.outh,
                                   height, inclusive=True)
        cols = _roi.quantized_bins(coords[:, 1], coords[:, 3], self.spatial_scale, self.outw,
                                   width, inclusive=True)
        y, self.roi_map = _roi.max_over_bins(x, batch, rows, cols)
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gx = ROIPooling2DGrad(self.roi_map).apply(grad_outputs)[0]
        return _roi.x_grad_only(indexes, gx)


class ROIPooling2DGrad(_roi.ROIMapGrad):
    """The gradient of :class:`ROIPooling2D` for ``x``: ``gy`` to each bin's maximum."""


def roi_pooling_2d(x: Any, rois: Any, outh: int, outw: int, spatial_scale: Any) -> Variable:
    """Spatial Region of Interest (ROI) pooling function (Fast R-CNN).

    The older interface of :func:`roi_max_pooling_2d`: each row of ``rois``
    is ``(batch_index, x_min, y_min, x_max, y_max)``, and the rounded ROI
    includes both ends, so it covers ``max(x_max - x_min + 1, 1)`` columns
    and ``max(y_max - y_min + 1, 1)`` rows. Bins, empty bins (0, no
    gradient) and ties behave as in :func:`roi_max_pooling_2d`.

    Args:
        x: Input of shape ``(N, C, H, W)``, floating point.
        rois: ROIs of shape ``(R, 5)``, the same dtype as ``x``; the batch
            index in column 0 is truncated to an integer.
        outh: The height of the output.
        outw: The width of the output.
        spatial_scale: The factor from ROI coordinates to pixels of ``x``.

    Returns:
        Variable: The pooled features of shape ``(R, C, outh, outw)``.

    Raises:
        InvalidType: If the shapes or dtypes of ``x`` and ``rois`` do not
            fit together.
        ValueError: If a batch index is outside ``[0, N)``, or an argument is
            out of range (TypeError if it has a wrong type).

    See `Fast R-CNN <https://arxiv.org/abs/1504.08083>`_.

    .. admonition:: Example

        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 0, 3, 3]], dtype=np.float32)
        >>> F.roi_pooling_2d(x, rois, 2, 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]
