"""Converters of catena.functions.array against onnxruntime."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
from catena.functions.array.as_strided import AsStrided
from catena.functions.array.broadcast import Broadcast, BroadcastTo
from catena.functions.array.cast import Cast
from catena.functions.array.concat import Concat
from catena.functions.array.copy import Copy
from catena.functions.array.depth2space import Depth2Space
from catena.functions.array.diagonal import Diagonal
from catena.functions.array.dstack import Dstack
from catena.functions.array.expand_dims import ExpandDims
from catena.functions.array.flip import Flip
from catena.functions.array.fliplr import FlipLR
from catena.functions.array.flipud import FlipUD
from catena.functions.array.get_item import GetItem
from catena.functions.array.hstack import Hstack
from catena.functions.array.im2col import Im2Col
from catena.functions.array.moveaxis import Moveaxis
from catena.functions.array.pad import Pad
from catena.functions.array.pad_sequence import PadSequence
from catena.functions.array.permutate import Permutate
from catena.functions.array.repeat import Repeat
from catena.functions.array.reshape import Reshape
from catena.functions.array.resize_images import ResizeImages
from catena.functions.array.rollaxis import Rollaxis
from catena.functions.array.scatter_add import ScatterAdd
from catena.functions.array.select_item import SelectItem
from catena.functions.array.separate import Separate
from catena.functions.array.space2depth import Space2Depth
from catena.functions.array.spatial_transformer_grid import SpatialTransformerGrid
from catena.functions.array.spatial_transformer_sampler import SpatialTransformerSampler
from catena.functions.array.split_axis import SplitAxis
from catena.functions.array.squeeze import Squeeze
from catena.functions.array.stack import Stack
from catena.functions.array.swapaxes import Swapaxes
from catena.functions.array.tile import Tile
from catena.functions.array.transpose import Transpose
from catena.functions.array.transpose_sequence import TransposeSequence
from catena.functions.array.vstack import Vstack
from catena.functions.array.where import Where

pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402

MODULE = 'catena_onnx.converters.array'
rng = np.random.default_rng(0)
F16: dict[str, Any] = {'rtol': 1e-2, 'atol': 1e-2}
# onnxruntime runs float64 Resize (and GridSample before opset 20) in float32: the
# converters cast around them.
VIA_F32: dict[str, Any] = {'rtol': 1e-5, 'atol': 1e-5}


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(-2, 2, shape).astype(dtype)


def _ints(high: int, *shape: int, dtype: type = np.int32) -> np.ndarray:
    return rng.integers(0, high, shape).astype(dtype)


def _index(key: Any) -> Callable[[Any], Any]:
    return lambda x: F.get_item(x, key)


MASK = np.array([[True, False, True, False], [False, False, True, True], [True] * 4])
PERM = np.array([3, 0, 4, 1, 2], dtype=np.int32)
CONDITION = rng.uniform(size=(3, 1, 5)) > 0.5
THETA = np.array([[[0.9, 0.2, 0.1], [-0.1, 1.1, -0.2]],
                  [[1.2, -0.3, 0.0], [0.25, 0.8, 0.3]]], dtype=np.float32)


CASES = [
    # dtype and copies
    ConverterCase('cast_f32_f64', lambda x: F.cast(x, np.float64), [_x(2, 3)], (Cast,)),
    ConverterCase('cast_f32_f16', lambda x: F.cast(x, 'float16'), [_x(2, 3)], (Cast,)),
    ConverterCase('cast_f64_int32', lambda x: F.cast(x, np.int32),
                  [_x(3, 4, dtype=np.float64) * 3], (Cast,)),
    ConverterCase('cast_int_f32', lambda x: F.cast(x, np.float32), [_ints(9, 5)], (Cast,)),
    ConverterCase('copy', lambda x: F.copy(x, -1), [_x(2, 3)], (Copy,)),
    # shapes
    ConverterCase('reshape', lambda x: F.reshape(x, (6, -1)), [_x(2, 3, 4)], (Reshape,)),
    ConverterCase('reshape_keep_batch', lambda x: F.reshape(x, (2, 12)), [_x(2, 3, 4)],
                  (Reshape,)),
    ConverterCase('reshape_f16', lambda x: F.reshape(x, (4, 3, 2)),
                  [_x(2, 3, 4, dtype=np.float16)], (Reshape,), **F16),
    ConverterCase('expand_dims', lambda x: F.expand_dims(x, 1), [_x(2, 3)], (ExpandDims,)),
    ConverterCase('expand_dims_negative', lambda x: F.expand_dims(x, -1), [_x(2, 3)],
                  (ExpandDims,)),
    ConverterCase('squeeze_all', lambda x: F.squeeze(x), [_x(1, 3, 1, 4)], (Squeeze,)),
    ConverterCase('squeeze_axes', lambda x: F.squeeze(x, (-2, 0)), [_x(1, 3, 1, 4)],
                  (Squeeze,)),
    ConverterCase('transpose_reverse', lambda x: F.transpose(x), [_x(2, 3, 4)], (Transpose,)),
    ConverterCase('transpose_axes', lambda x: F.transpose(x, (1, -1, 0)), [_x(2, 3, 4)],
                  (Transpose,)),
    ConverterCase('swapaxes', lambda x: F.swapaxes(x, 0, -1), [_x(2, 3, 4)], (Swapaxes,)),
    ConverterCase('moveaxis', lambda x: F.moveaxis(x, (0, 1), (-1, 0)), [_x(2, 3, 4, 5)],
                  (Moveaxis,)),
    ConverterCase('rollaxis_back', lambda x: F.rollaxis(x, 3, 1), [_x(2, 3, 4, 5)],
                  (Rollaxis,)),
    ConverterCase('rollaxis_forward', lambda x: F.rollaxis(x, 0, 3), [_x(2, 3, 4, 5)],
                  (Rollaxis,)),
    ConverterCase('depth2space', lambda x: F.depth2space(x, 2), [_x(2, 12, 3, 4)],
                  (Depth2Space,)),
    ConverterCase('depth2space_f64', lambda x: F.depth2space(x, 3),
                  [_x(1, 9, 2, 3, dtype=np.float64)], (Depth2Space,)),
    ConverterCase('space2depth', lambda x: F.space2depth(x, 2), [_x(2, 3, 4, 6)],
                  (Space2Depth,)),
    ConverterCase('broadcast_to', lambda x: F.broadcast_to(x, (2, 3, 4)), [_x(3, 1)],
                  (BroadcastTo,)),
    ConverterCase('broadcast_to_f16', lambda x: F.broadcast_to(x, (5, 4)),
                  [_x(1, 4, dtype=np.float16)], (BroadcastTo,), **F16),
    ConverterCase('broadcast', lambda x, y, z: F.broadcast(x, y, z),
                  [_x(3, 1), _x(4), _x(3, 4)], (Broadcast,)),
    # joining
    ConverterCase('concat', lambda x, y: F.concat((x, y), axis=1), [_x(2, 3), _x(2, 4)],
                  (Concat,)),
    ConverterCase('concat_negative_axis_f16', lambda x, y, z: F.concat((x, y, z), axis=-1),
                  [_x(2, 3, 1, dtype=np.float16), _x(2, 3, 2, dtype=np.float16),
                   _x(2, 3, 3, dtype=np.float16)], (Concat,), **F16),
    ConverterCase('stack', lambda x, y: F.stack((x, y)), [_x(2, 3), _x(2, 3)], (Stack,)),
    ConverterCase('stack_last', lambda x, y, z: F.stack((x, y, z), axis=-1),
                  [_x(2, 3), _x(2, 3), _x(2, 3)], (Stack,)),
    ConverterCase('stack_single', lambda x: F.stack((x,), axis=1), [_x(2, 3)], (Stack,)),
    ConverterCase('hstack_0d', lambda x, y: F.hstack((x, y)), [_x(), _x()], (Hstack,)),
    ConverterCase('hstack_1d', lambda x, y: F.hstack((x, y)), [_x(2), _x(3)], (Hstack,)),
    ConverterCase('hstack_2d', lambda x, y: F.hstack((x, y)), [_x(2, 3), _x(2, 1)], (Hstack,)),
    ConverterCase('vstack_0d', lambda x, y: F.vstack((x, y)), [_x(), _x()], (Vstack,)),
    ConverterCase('vstack_1d', lambda x, y: F.vstack((x, y)), [_x(3), _x(3)], (Vstack,)),
    ConverterCase('vstack_3d', lambda x, y: F.vstack((x, y)), [_x(2, 3, 2), _x(1, 3, 2)],
                  (Vstack,)),
    ConverterCase('dstack_0d', lambda x, y: F.dstack((x, y)), [_x(), _x()], (Dstack,)),
    ConverterCase('dstack_1d', lambda x, y: F.dstack((x, y)), [_x(3), _x(3)], (Dstack,)),
    ConverterCase('dstack_2d', lambda x, y: F.dstack((x, y)), [_x(2, 3), _x(2, 3)], (Dstack,)),
    ConverterCase('dstack_4d', lambda x, y: F.dstack((x, y)), [_x(2, 3, 1, 2), _x(2, 3, 2, 2)],
                  (Dstack,)),
    ConverterCase('tile', lambda x: F.tile(x, 2), [_x(2, 3)], (Tile,)),
    ConverterCase('tile_more_reps', lambda x: F.tile(x, (2, 1, 3)), [_x(2, 3)], (Tile,)),
    ConverterCase('tile_fewer_reps', lambda x: F.tile(x, (2, 3)), [_x(2, 3, 4)], (Tile,)),
    ConverterCase('repeat_axis', lambda x: F.repeat(x, 2, axis=1), [_x(2, 3)], (Repeat,)),
    ConverterCase('repeat_counts', lambda x: F.repeat(x, (1, 0, 3), axis=-2), [_x(3, 2)],
                  (Repeat,)),
    ConverterCase('repeat_flat', lambda x: F.repeat(x, 3), [_x(2, 2)], (Repeat,)),
    # splitting
    ConverterCase('split_sections', lambda x: F.split_axis(x, 3, axis=1), [_x(2, 6)],
                  (SplitAxis,)),
    ConverterCase('split_indices', lambda x: F.split_axis(x, [1, -2], axis=-1), [_x(2, 3, 5)],
                  (SplitAxis,)),
    ConverterCase('split_empty_piece', lambda x: F.split_axis(x, [0, 2, 2], axis=0),
                  [_x(4, 3)], (SplitAxis,)),
    ConverterCase('split_one_used', lambda x: F.split_axis(x, 2, axis=0)[1], [_x(4, 3)],
                  (SplitAxis,)),
    ConverterCase('split_single', lambda x: F.split_axis(x, 1, axis=0), [_x(4, 3)],
                  (SplitAxis,)),
    ConverterCase('separate', lambda x: F.separate(x, axis=1), [_x(2, 3, 4)], (Separate,)),
    ConverterCase('separate_one_used', lambda x: F.separate(x, axis=-1)[2], [_x(2, 3)],
                  (Separate,)),
    ConverterCase('transpose_sequence', lambda a, b, c: F.transpose_sequence([a, b, c]),
                  [_x(3, 2), _x(2, 2), _x(1, 2)], (TransposeSequence,)),
    # reordering
    ConverterCase('flip', lambda x: F.flip(x, 1), [_x(2, 3, 4)], (Flip,)),
    ConverterCase('flip_negative_f64', lambda x: F.flip(x, -1), [_x(2, 3, dtype=np.float64)],
                  (Flip,)),
    ConverterCase('fliplr', F.fliplr, [_x(2, 3, 4)], (FlipLR,)),
    ConverterCase('flipud', F.flipud, [_x(3, 2)], (FlipUD,)),
    ConverterCase('permutate', lambda x, i: F.permutate(x, i, axis=1),
                  [_x(2, 5), PERM], (Permutate,)),
    ConverterCase('permutate_inv', lambda x, i: F.permutate(x, i, inv=True),
                  [_x(5, 2), PERM], (Permutate,), opsets=(10,)),
    ConverterCase('permutate_constant', lambda x: F.permutate(x, PERM, axis=-1),
                  [_x(2, 5)], (Permutate,)),
    ConverterCase('permutate_constant_inv', lambda x: F.permutate(x, PERM, inv=True),
                  [_x(5, 3)], (Permutate,)),
    ConverterCase('select_item', F.select_item, [_x(4, 3), _ints(3, 4)], (SelectItem,)),
    ConverterCase('select_item_int64', F.select_item,
                  [_x(3, 5, dtype=np.float64), _ints(5, 3, dtype=np.int64)], (SelectItem,)),
    ConverterCase('where', lambda x, y: F.where(CONDITION, x, y), [_x(3, 4, 5), _x(4, 1)],
                  (Where,)),
    ConverterCase('where_f64', lambda x, y: F.where(CONDITION, x, y),
                  [_x(3, 4, 5, dtype=np.float64), _x(3, 4, 5, dtype=np.float64)], (Where,)),
    ConverterCase('where_f16', lambda x, y: F.where(np.array(True), x, y),
                  [_x(2, 3, dtype=np.float16), _x(3, dtype=np.float16)], (Where,)),
    ConverterCase('diagonal', F.diagonal, [_x(3, 4)], (Diagonal,)),
    ConverterCase('diagonal_offset', lambda x: F.diagonal(x, 1, -1, 0), [_x(3, 4, 2)],
                  (Diagonal,)),
    ConverterCase('diagonal_below', lambda x: F.diagonal(x, -2, 1, 2), [_x(2, 4, 3)],
                  (Diagonal,)),
    ConverterCase('as_strided', lambda x: F.as_strided(x, (3, 4), (2, 1), 1), [_x(3, 4)],
                  (AsStrided,)),
    # indexing
    ConverterCase('get_item_slices', _index((slice(1, 3), slice(None, None, 2))),
                  [_x(4, 5)], (GetItem,)),
    ConverterCase('get_item_negative_steps', _index((slice(None, None, -1), slice(3, 0, -2),
                                                     slice(-1, -4, -1))),
                  [_x(3, 5, 4)], (GetItem,)),
    ConverterCase('get_item_int_none_ellipsis', _index((1, None, Ellipsis, -1)),
                  [_x(3, 4, 5)], (GetItem,)),
    ConverterCase('get_item_last', _index(-1), [_x(3, 4)], (GetItem,)),
    ConverterCase('get_item_scalar', _index((1, 2)), [_x(3, 4)], (GetItem,)),
    ConverterCase('get_item_empty', _index(slice(3, 1)), [_x(4, 2)], (GetItem,)),
    ConverterCase('get_item_none_only', _index((None, slice(None), None)), [_x(2, 3)],
                  (GetItem,)),
    ConverterCase('get_item_f16', _index((Ellipsis, slice(1, None))),
                  [_x(2, 3, dtype=np.float16)], (GetItem,), **F16),
    ConverterCase('get_item_int_array', _index((slice(None), [2, 0, -1])), [_x(3, 4)],
                  (GetItem,)),
    ConverterCase('get_item_2d_array', _index(np.array([[0, 1], [2, 0]])), [_x(3, 4)],
                  (GetItem,)),
    ConverterCase('get_item_array_and_slices', _index((slice(1, None), None, [1, 1, 0],
                                                       slice(None, None, -1))),
                  [_x(3, 2, 4)], (GetItem,)),
    ConverterCase('get_item_adjacent_arrays', _index((slice(None, None, -1), [0, 1], [2, -1])),
                  [_x(2, 3, 4, 5)], (GetItem,)),
    ConverterCase('get_item_split_arrays', _index(([0, 1], slice(None), [1, 2])),
                  [_x(2, 3, 4)], (GetItem,)),
    ConverterCase('get_item_int_and_array', _index((0, slice(None), [0, 1])), [_x(2, 3, 4)],
                  (GetItem,)),
    ConverterCase('get_item_arrays_around_none', _index((slice(None), [0, 1], None, [1, 2])),
                  [_x(3, 4, 5, 6)], (GetItem,)),
    ConverterCase('get_item_broadcast_arrays', _index((np.array([[0], [2]]), [1, 0, 3])),
                  [_x(3, 4)], (GetItem,)),
    ConverterCase('get_item_numpy_ints', _index((np.int64(1), slice(None), np.array(2))),
                  [_x(2, 3, 4)], (GetItem,)),
    ConverterCase('get_item_0d_arrays', _index((np.array(1), -2)), [_x(2, 3)], (GetItem,)),
    ConverterCase('get_item_bool_mask', _index(MASK), [_x(3, 4, 2)], (GetItem,)),
    ConverterCase('get_item_bool_axis', _index((slice(None), np.array([True, False, True]))),
                  [_x(2, 3)], (GetItem,)),
    ConverterCase('get_item_int_input', _index((slice(None), [1, 0])), [_ints(9, 2, 3)],
                  (GetItem,)),
    # padding
    ConverterCase('pad_constant', lambda x: F.pad(x, 1, 'constant'), [_x(2, 3)], (Pad,)),
    ConverterCase('pad_constant_value', lambda x: F.pad(x, ((0, 0), (2, 1)), 'constant',
                                                        constant_values=-1.5),
                  [_x(2, 3)], (Pad,)),
    ConverterCase('pad_constant_values', lambda x: F.pad(x, ((1, 2), (2, 1)), 'constant',
                                                         constant_values=((1, 2), (3, 4))),
                  [_x(2, 3)], (Pad,)),
    ConverterCase('pad_edge', lambda x: F.pad(x, ((0, 0), (1, 2), (3, 0)), 'edge'),
                  [_x(2, 3, 4)], (Pad,)),
    ConverterCase('pad_reflect', lambda x: F.pad(x, ((1, 2), (2, 1)), 'reflect'), [_x(3, 4)],
                  (Pad,)),
    ConverterCase('pad_reflect_wide', lambda x: F.pad(x, ((0, 0), (5, 2)), 'reflect'),
                  [_x(2, 3)], (Pad,)),
    ConverterCase('pad_symmetric', lambda x: F.pad(x, ((2, 1), (0, 4)), 'symmetric'),
                  [_x(3, 3)], (Pad,)),
    ConverterCase('pad_wrap_f64', lambda x: F.pad(x, ((1, 0), (4, 2)), 'wrap'),
                  [_x(2, 3, dtype=np.float64)], (Pad,)),
    ConverterCase('pad_f16', lambda x: F.pad(x, 2, 'constant', constant_values=3),
                  [_x(2, 3, dtype=np.float16)], (Pad,), **F16),
    ConverterCase('pad_sequence', lambda a, b, c: F.pad_sequence([a, b, c], padding=-1),
                  [_x(3, 2), _x(1, 2), _x(3, 2)], (PadSequence,)),
    ConverterCase('pad_sequence_length_int', lambda a, b: F.pad_sequence([a, b], 4, 7),
                  [_ints(9, 2), _ints(9, 4)], (PadSequence,)),
    # images
    ConverterCase('resize_align_corners_up', lambda x: F.resize_images(x, (5, 7)),
                  [_x(2, 3, 3, 4)], (ResizeImages,), opsets=(10, 11)),
    ConverterCase('resize_align_corners_down', lambda x: F.resize_images(x, (2, 3)),
                  [_x(1, 2, 5, 7)], (ResizeImages,)),
    ConverterCase('resize_align_corners_one', lambda x: F.resize_images(x, (1, 3)),
                  [_x(1, 2, 4, 5)], (ResizeImages,)),
    ConverterCase('resize_half_pixel_up', lambda x: F.resize_images(x, (7, 5),
                                                                    align_corners=False),
                  [_x(2, 2, 3, 4)], (ResizeImages,)),
    ConverterCase('resize_half_pixel_down', lambda x: F.resize_images(x, (2, 3),
                                                                      align_corners=False),
                  [_x(1, 3, 5, 7)], (ResizeImages,)),
    ConverterCase('resize_f64', lambda x: F.resize_images(x, (6, 5)),
                  [_x(1, 2, 3, 4, dtype=np.float64)], (ResizeImages,), **VIA_F32),
    ConverterCase('resize_f16', lambda x: F.resize_images(x, (5, 3), align_corners=False),
                  [_x(1, 2, 3, 4, dtype=np.float16)], (ResizeImages,), **F16),
    ConverterCase('resize_nearest', lambda x: F.resize_images(x, (7, 3), mode='nearest'),
                  [_x(2, 2, 5, 4)], (ResizeImages,)),
    ConverterCase('im2col', lambda x: F.im2col(x, 3, pad=1), [_x(2, 3, 4, 5)], (Im2Col,)),
    ConverterCase('im2col_stride_cover_all', lambda x: F.im2col(x, (2, 3), stride=2,
                                                                cover_all=True),
                  [_x(1, 2, 6, 7)], (Im2Col,)),
    ConverterCase('im2col_dilate', lambda x: F.im2col(x, 2, stride=(1, 2), pad=(0, 1),
                                                      dilate=2),
                  [_x(1, 2, 5, 6, dtype=np.float64)], (Im2Col,)),
    ConverterCase('spatial_transformer_grid', lambda t: F.spatial_transformer_grid(t, (3, 4)),
                  [THETA], (SpatialTransformerGrid,)),
    ConverterCase('spatial_transformer_sampler', F.spatial_transformer_sampler,
                  [_x(2, 3, 4, 5), rng.uniform(-1.2, 1.2, (2, 2, 3, 6)).astype(np.float32)],
                  (SpatialTransformerSampler,), opsets=(19, 20)),
    ConverterCase('spatial_transformer_f64', F.spatial_transformer_sampler,
                  [_x(1, 2, 3, 4, dtype=np.float64),
                   rng.uniform(-1, 1, (1, 2, 2, 2)).astype(np.float64)],
                  (SpatialTransformerSampler,), opsets=(19, 20), **VIA_F32),
    ConverterCase('spatial_transformer_f16', F.spatial_transformer_sampler,
                  [_x(1, 2, 3, 4, dtype=np.float16),
                   rng.uniform(-1, 1, (1, 2, 2, 2)).astype(np.float16)],
                  (SpatialTransformerSampler,), **F16),
    ConverterCase('scatter_add', lambda a, b: F.scatter_add(a, (slice(1, 3), 0), b),
                  [_x(4, 3), _x(2)], (ScatterAdd,), opsets=(15, 16)),
    ConverterCase('scatter_add_array', lambda a, b: F.scatter_add(a, (slice(None), [2, 0]), b),
                  [_x(3, 4), _x(3, 2)], (ScatterAdd,)),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_scatter_add_repeated_positions_need_opset_16() -> None:
    case = ConverterCase('scatter_add_repeated',
                         lambda a, b: F.scatter_add(a, ([1, 1, 0],), b),
                         [_x(3, 2), _x(3, 2)], (ScatterAdd,))
    check_case(case, 16)
    with pytest.raises(NotImplementedError, match='opset 16'):
        check_case(case, 15)


DYNAMIC = [
    ('reshape', lambda x: F.reshape(x, (x.shape[0], -1))),
    ('get_item', lambda x: x[:, 1:, ::-1][:, None, 0]),
    ('get_item_array', lambda x: x[..., [2, 0]]),
    ('broadcast_to', lambda x: F.broadcast_to(x[:, :1], x.shape)),
    ('resize', lambda x: F.resize_images(x[:, None], (5, 2))),
    ('im2col', lambda x: F.im2col(x[:, None], 2)),
    ('diagonal', lambda x: F.diagonal(x, 0, 1, 2)),
    ('stack_separate', lambda x: F.stack(F.separate(x, 2), 1)),
]


@pytest.mark.parametrize(('name', 'model'), DYNAMIC, ids=[name for name, _ in DYNAMIC])
def test_dynamic_batch(name: str, model: Callable[[Any], Any]) -> None:
    onnx_model = catena_onnx.export(model, [_x(2, 3, 3)], input_names=['x'],
                                    dynamic_axes={'x': [0]})
    for batch in (1, 5):
        x = _x(batch, 3, 3)
        expected = model(catena.Variable(x)).array
        got = run_onnxruntime(onnx_model, {'x': x})
        np.testing.assert_allclose(next(iter(got.values())), expected, rtol=1e-5, atol=1e-6)


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []


@pytest.mark.parametrize('inv', [False, True])
@pytest.mark.parametrize('dtype', [np.int32, np.uint8])
def test_permutate_reads_indices_given_as_a_graph_input(inv: bool, dtype: type) -> None:
    # The node holds the indices as an attribute; when they are a graph input, the graph
    # still permutes by the value given at run time.
    onnx_model = catena_onnx.export(lambda x, i: F.permutate(x, i, inv=inv),
                                    [_x(5, 2), PERM.astype(dtype)],
                                    input_names=['x', 'indices'])
    x = _x(5, 2)
    other = np.array([1, 4, 0, 2, 3], dtype)
    expected = F.permutate(x, other, inv=inv).array
    got = run_onnxruntime(onnx_model, {'x': x, 'indices': other})
    np.testing.assert_array_equal(next(iter(got.values())), expected)


def test_permutate_bakes_indices_computed_from_a_graph_input() -> None:
    onnx_model = catena_onnx.export(lambda x, i: F.permutate(x, i.array[::-1].copy()),
                                    [_x(5, 2), PERM], input_names=['x', 'indices'])
    gather, = [node for node in onnx_model.graph.node if node.op_type == 'Gather']
    assert gather.input[1] != 'indices'
    x = _x(5, 2)
    got = run_onnxruntime(onnx_model, {'x': x, 'indices': PERM})
    np.testing.assert_array_equal(next(iter(got.values())), x[PERM[::-1]])
