"""``spatial_transformer_sampler``: bilinear sampling of images at given points."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable

# (row offset, column offset) of the four pixels around a sampling point.
_CORNERS = ((0, 0), (0, 1), (1, 0), (1, 1))


class _Corner(NamedTuple):
    """One of the four pixels around every sampling point, flattened over the batch.

    Attributes:
        rows: Row index ``(b * H + row) * W + col`` into the images laid out
            as ``(n * H * W, C)`` rows, clipped into each image; shape ``(n * P,)``.
        inside: 1 where the pixel lies inside the image, 0 where it is padding.
        wu, wv: The bilinear weights along x and y (``1 - frac`` or ``frac``).
        su, sv: The signs (+1 or -1) of the derivatives of ``wu`` and ``wv``.
    """

    rows: Any
    inside: Any
    wu: Any
    wv: Any
    su: int
    sv: int


def _corners(grid: Any, height: int, width: int, dtype: Any) -> list[_Corner]:
    xp = backend.get_array_module(grid)
    n = grid.shape[0]
    work = numpy.promote_types(grid.dtype, numpy.float32)
    flat = grid.reshape(n, 2, -1).astype(work, copy=False)
    # From [-1, 1] to pixel units. Beyond one pixel outside, all four pixels are
    # padding, so clipping there changes nothing and keeps the integer cast safe.
    u = xp.clip((flat[:, 0] + 1) * work.type((width - 1) / 2), -2, width + 1)
    v = xp.clip((flat[:, 1] + 1) * work.type((height - 1) / 2), -2, height + 1)
    u0 = xp.floor(u)
    v0 = xp.floor(v)
    fu = (u - u0).astype(dtype, copy=False).ravel()
    fv = (v - v0).astype(dtype, copy=False).ravel()
    u0 = u0.astype(numpy.intp)
    v0 = v0.astype(numpy.intp)
    first_row = (xp.arange(n) * (height * width))[:, None]
    corners = []
    for dv, du in _CORNERS:
        uc = u0 + du if du else u0
        vc = v0 + dv if dv else v0
        inside = (uc >= 0) & (uc < width) & (vc >= 0) & (vc < height)
        rows = xp.clip(vc, 0, height - 1) * width + xp.clip(uc, 0, width - 1) + first_row
        corners.append(_Corner(rows=rows.ravel(), inside=inside.astype(dtype).ravel(),
                               wu=fu if du else 1 - fu, wv=fv if dv else 1 - fv,
                               su=1 if du else -1, sv=1 if dv else -1))
    return corners


def _pixel_rows(x: Any) -> Any:
    """``(n, C, H, W)`` as ``(n * H * W, C)``: one row of channels per pixel."""
    return x.transpose(0, 2, 3, 1).reshape(-1, x.shape[1])


def _from_pixel_rows(rows: Any, n: int, spatial: tuple[int, ...]) -> Any:
    channels = rows.shape[1]
    images = rows.reshape((n,) + spatial + (channels,)).transpose(0, 3, 1, 2)
    return backend.get_array_module(rows).ascontiguousarray(images)


class SpatialTransformerSampler(FunctionNode):
    """Samples ``x`` bilinearly at the points of ``grid``, with zero padding outside."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'grid'))
        x_type, grid_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            grid_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            grid_type.ndim == 4,
            grid_type.shape[1] == 2,
            x_type.shape[0] == grid_type.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, grid = inputs
        n, _, height, width = x.shape
        x_rows = _pixel_rows(x)
        y = None
        for corner in _corners(grid, height, width, x.dtype):
            term = x_rows.take(corner.rows, axis=0)
            term *= (corner.wu * corner.wv * corner.inside)[:, None]
            if y is None:
                y = term
            else:
                y += term
        return _from_pixel_rows(y, n, grid.shape[2:]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, grid = self.get_retained_inputs()
        return SpatialTransformerSamplerGrad(tuple(indexes)).apply((x, grid, grad_outputs[0]))


class SpatialTransformerSamplerGrad(FunctionNode):
    """The gradients of spatial_transformer_sampler w.r.t. ``x`` (0) and ``grid`` (1).

    It outputs only the gradients named in ``indexes``. As in Chainer, they
    cannot be differentiated again.
    """

    def __init__(self, indexes: tuple[int, ...] = (0, 1)) -> None:
        self.indexes = indexes

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid, gy = inputs
        xp = backend.get_array_module(x)
        n, channels, height, width = x.shape
        need_x = 0 in self.indexes
        need_grid = 1 in self.indexes
        x_rows = _pixel_rows(x)
        gy_rows = _pixel_rows(gy)
        channel = xp.arange(channels)
        targets = []
        values = []
        gu = gv = None
        for corner in _corners(grid, height, width, x.dtype):
            if need_x:
                # d y / d x: the interpolation weights, scattered back to the pixels.
                weight = corner.wu * corner.wv * corner.inside
                targets.append((corner.rows[:, None] * channels + channel).ravel())
                values.append((gy_rows * weight[:, None]).ravel())
            if need_grid:
                # d y / d (u, v): the pixel value times the derivative of the weight.
                pull = xp.einsum('ij,ij->i', gy_rows, x_rows.take(corner.rows, axis=0))
                pull *= corner.inside
                du = pull * corner.wv
                dv = pull * corner.wu
                gu = du * corner.su if gu is None else gu + du * corner.su
                gv = dv * corner.sv if gv is None else gv + dv * corner.sv
        outputs = []
        if need_x:
            gx_rows = xp.bincount(xp.concatenate(targets), weights=xp.concatenate(values),
                                  minlength=x.size)
            gx_rows = gx_rows.astype(x.dtype, copy=False).reshape(-1, channels)
            outputs.append(_from_pixel_rows(gx_rows, n, (height, width)))
        if need_grid:
            assert gu is not None and gv is not None
            gu *= x.dtype.type((width - 1) / 2)
            gv *= x.dtype.type((height - 1) / 2)
            ggrid = xp.stack([gu.reshape(n, -1), gv.reshape(n, -1)], axis=1)
            outputs.append(ggrid.reshape(grid.shape))
        return tuple(outputs)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        raise RuntimeError(
            'spatial_transformer_sampler can be differentiated only once: the gradients of '
            'its gradients are not implemented (as in Chainer)')


def spatial_transformer_sampler(x: Any, grid: Any) -> Variable:
    """Samples ``x`` at the points of ``grid`` with bilinear interpolation.

    This is the differentiable sampler of Spatial Transformer Networks
    (`arXiv:1506.02025 <https://arxiv.org/abs/1506.02025>`_). The point
    ``grid[i, :, p, q]`` gives the location in ``x[i]`` that output pixel
    ``(p, q)`` takes its value from: ``grid[i, 0]`` is the coordinate along
    the width, ``grid[i, 1]`` along the height, both scaled so that (-1, -1)
    is the centre of the upper-left pixel and (1, 1) that of the lower-right
    one. Points outside sample from a zero-padded image, so the value fades
    to zero within one pixel beyond the border. The gradients with respect
    to ``x`` and ``grid`` are computed; they are not differentiable again.

    Args:
        x: A Variable or array of floating point type and shape
            ``(n, c, h, w)``.
        grid: A Variable or array of the same dtype and shape
            ``(n, 2, h_O, w_O)``, e.g. from :func:`spatial_transformer_grid`.

    Returns:
        Variable: The sampled images, of shape ``(n, c, h_O, w_O)``.

    .. admonition:: Example

        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
        >>> grid = np.array([[[[0.0]], [[-1.0]]]], dtype=np.float32)  # x=0, y=-1
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[0.5]]]], dtype=float32)
    """
    return SpatialTransformerSampler().apply((x, grid))[0]
