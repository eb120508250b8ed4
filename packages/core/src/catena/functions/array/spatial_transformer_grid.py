"""``spatial_transformer_grid``: sampling coordinates of an affine warp."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.utils import type_check
from catena.variable import Variable


@functools.lru_cache(maxsize=64)
def _target_coordinates(height: int, width: int) -> numpy.ndarray:
    """The homogeneous target coordinates ``(x_t, y_t, 1)``, shape ``(3, H * W)``.

    Both coordinates run over [-1, 1]; x along the width, y along the height.
    """
    ys, xs = numpy.meshgrid(numpy.linspace(-1, 1, height), numpy.linspace(-1, 1, width),
                            indexing='ij')
    return numpy.stack([xs.ravel(), ys.ravel(), numpy.ones(height * width)])


def _coordinates_like(array: Any, output_shape: tuple[int, int]) -> Any:
    host = _target_coordinates(*output_shape).astype(array.dtype)
    return backend.get_array_module(array).asarray(host)


def _normalize_output_shape(output_shape: Any) -> tuple[int, int]:
    try:
        shape = tuple(output_shape)
    except TypeError:
        raise _arguments.wrong_kind('spatial_transformer_grid', 'output_shape',
                                    'a pair of positive ints (h_O, w_O)', output_shape) from None
    if len(shape) != 2 or not all(isinstance(s, (int, numpy.integer)) and s > 0
                                  for s in shape):
        raise ValueError(f'output_shape must be a pair of positive ints (h_O, w_O); '
                         f'got {output_shape!r}')
    return int(shape[0]), int(shape[1])


class SpatialTransformerGrid(FunctionNode):
    """Applies ``(n, 2, 3)`` affine matrices to a regular ``(h_O, w_O)`` target grid."""

    def __init__(self, output_shape: Any) -> None:
        self.output_shape = _normalize_output_shape(output_shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('theta',))
        theta_type = in_types[0]
        type_check.expect(
            theta_type.dtype.kind == 'f',
            theta_type.ndim == 3,
            theta_type.shape[1] == 2,
            theta_type.shape[2] == 3,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        theta, = inputs
        coords = _coordinates_like(theta, self.output_shape)
        grid = backend.get_array_module(theta).matmul(theta, coords)
        return grid.reshape((theta.shape[0], 2) + self.output_shape),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return SpatialTransformerGridGrad(self.output_shape).apply(grad_outputs)


class SpatialTransformerGridGrad(FunctionNode):
    """The gradient of spatial_transformer_grid: ``ggrid @ coords.T``."""

    def __init__(self, output_shape: tuple[int, int]) -> None:
        self.output_shape = output_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ggrid, = inputs
        coords = _coordinates_like(ggrid, self.output_shape)
        flat = ggrid.reshape(ggrid.shape[0], 2, -1)
        return backend.get_array_module(ggrid).matmul(flat, coords.T),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return SpatialTransformerGrid(self.output_shape).apply(grad_outputs)


def spatial_transformer_grid(theta: Any, output_shape: Any) -> Variable:
    """Generates the sampling grid of a Spatial Transformer Network.

    For every pixel of a regular ``(h_O, w_O)`` target grid with coordinates
    :math:`(x^t, y^t)` scaled to [-1, 1] (x along the width, y along the
    height), the source point is

    .. math::

        \\begin{pmatrix} x^s \\\\ y^s \\end{pmatrix} =
        \\theta \\begin{pmatrix} x^t \\\\ y^t \\\\ 1 \\end{pmatrix}.

    The result is meant for :func:`spatial_transformer_sampler`. See
    `Spatial Transformer Networks <https://arxiv.org/abs/1506.02025>`_.

    Args:
        theta: A Variable or array of floating point type and shape
            ``(n, 2, 3)``: one affine matrix per sample.
        output_shape: ``(h_O, w_O)``, the size of the grid.

    Returns:
        Variable: The source coordinates, of shape ``(n, 2, h_O, w_O)``;
        ``[:, 0]`` holds x and ``[:, 1]`` holds y, where (-1, -1) is the
        upper-left corner of the input image and (1, 1) the lower-right one.

    .. admonition:: Example

        >>> theta = np.array([[[1, 0, 0], [0, 1, 0]]], dtype=np.float32)
        >>> F.spatial_transformer_grid(theta, (2, 3)).array[0, 0]
        array([[-1.,  0.,  1.],
               [-1.,  0.,  1.]], dtype=float32)
    """
    return SpatialTransformerGrid(output_shape).apply((theta,))[0]
