"""Converters for catena.functions.array.

Index arrays that a function holds as attributes (GetItem's integer arrays,
Repeat's counts, the taps of Im2Col, ...) become constant ``Gather``
indices, so every such converter is exact. Shapes are baked into the graph
only along the axes a function actually changes; leading axes stay ``0``
(keep) in Reshape targets and ``1`` in Expand targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

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
from catena.functions.array.resize_images import ResizeImages, _source_positions
from catena.functions.array.rollaxis import Rollaxis
from catena.functions.array.scatter_add import ScatterAdd
from catena.functions.array.select_item import SelectItem
from catena.functions.array.separate import Separate
from catena.functions.array.space2depth import Space2Depth
from catena.functions.array.spatial_transformer_grid import (
    SpatialTransformerGrid,
    _target_coordinates,
)
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
from catena.utils import conv
from catena_onnx import _trace
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter

_INT64_MAX = int(numpy.iinfo(numpy.int64).max)
_INT64_MIN = int(numpy.iinfo(numpy.int64).min)


# ------------------------------------------------------------------ helpers

def _identity(ctx: ConversionContext, x: str, out: str | None) -> str:
    return x if out is None else ctx.op('Identity', [x], out)


def _transpose(ctx: ConversionContext, x: str, perm: Sequence[int],
               out: str | None = None) -> str:
    """``Transpose`` by ``perm`` (an ``Identity``, or nothing, when it keeps the order)."""
    if list(perm) == sorted(perm):
        return _identity(ctx, x, out)
    return ctx.op('Transpose', [x], out, perm=[int(p) for p in perm])


def _constant(ctx: ConversionContext, value: Any, dtype: Any = None) -> str:
    """``ctx.const``, but a 0-d value stays 0-d (as a Constant node, opset 9 for
    non-float values: the builder stores initializers with at least one dimension)."""
    array = numpy.asarray(value, dtype=dtype)
    if array.ndim:
        return ctx.const(array)
    from onnx import numpy_helper

    return ctx.op('Constant', [], value=numpy_helper.from_array(array, ctx.temp('value')))


def _gather(ctx: ConversionContext, x: str, indices: Any, axis: int,
            out: str | None = None) -> str:
    """``Gather`` with constant (non-negative) indices."""
    indices = numpy.asarray(indices, dtype=numpy.int64)
    if indices.ndim == 0 and ctx.opset < 9:  # Constant holds only floats before opset 9
        picked = ctx.op('Gather', [x, ctx.const(indices.reshape(1))], axis=axis)
        return _ops.squeeze(ctx, picked, [axis], out=out)
    return ctx.op('Gather', [x, _constant(ctx, indices)], out, axis=axis)


def _slice_axis(ctx: ConversionContext, x: str, axis: int, s: slice, dim: int,
                out: str | None = None) -> str:
    """``x[..., s]`` along ``axis`` (a Gather where an old Slice cannot step)."""
    step = 1 if s.step is None else int(s.step)
    if step != 1 and ctx.opset < 10:
        return _gather(ctx, x, numpy.arange(dim)[s], axis, out)
    start = s.start if s.start is not None else (0 if step > 0 else _INT64_MAX)
    stop = s.stop if s.stop is not None else (_INT64_MAX if step > 0 else _INT64_MIN)
    return _ops.slice_(ctx, x, [int(start)], [int(stop)], [axis],
                       None if step == 1 else [step], out=out)


def _flip(ctx: ConversionContext, axis: int) -> None:
    x = ctx.input_arrays[0]
    axis %= x.ndim
    _slice_axis(ctx, ctx.inputs[0], axis, slice(None, None, -1), x.shape[axis], ctx.outputs[0])


def _expand(ctx: ConversionContext, x: str, in_shape: Sequence[int], shape: Sequence[int],
            out: str | None = None) -> str:
    """Broadcasts ``x`` of ``in_shape`` to ``shape``.

    ``Expand`` broadcasts both ways, so the target holds 1 wherever ``x``
    already has the size: those axes (such as a dynamic batch) are not baked in.
    """
    if tuple(in_shape) == tuple(shape):
        return _identity(ctx, x, out)
    lead = len(shape) - len(in_shape)
    aligned = (1,) * lead + tuple(in_shape)
    if ctx.opset >= 8:
        target = [1 if a == s else s for a, s in zip(aligned, shape)]
        return ctx.op('Expand', [x, ctx.ints(target)], out)
    if lead:
        x = _ops.unsqueeze(ctx, x, list(range(lead)))
    reps = [s if a == 1 else 1 for a, s in zip(aligned, shape)]
    return ctx.op('Tile', [x, ctx.ints(reps)], out)


def _moveaxis_perm(ndim: int, source: Sequence[int], destination: Sequence[int]) -> list[int]:
    """The Transpose ``perm`` that moves ``source`` axes to ``destination``."""
    source = [a % ndim for a in source]
    destination = [a % ndim for a in destination]
    order = [a for a in range(ndim) if a not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return order


def _concat(ctx: ConversionContext, xs: Sequence[str], axis: int, out: str) -> None:
    if len(xs) == 1:
        _identity(ctx, xs[0], out)
    else:
        ctx.op('Concat', list(xs), out, axis=axis)


# ------------------------------------------------------------- dtype, copy

@converter(Cast)
def convert_cast(ctx: ConversionContext) -> None:
    _ops.cast(ctx, ctx.inputs[0], ctx.func.type, out=ctx.outputs[0])


@converter(Copy)
def convert_copy(ctx: ConversionContext) -> None:
    ctx.node('Identity', ctx.inputs, ctx.outputs)


# ------------------------------------------------------------ shape changes

@converter(Reshape)
def convert_reshape(ctx: ConversionContext) -> None:
    _ops.reshape(ctx, ctx.inputs[0], ctx.func.shape, ctx.input_arrays[0].shape,
                 out=ctx.outputs[0])


@converter(ExpandDims)
def convert_expand_dims(ctx: ConversionContext) -> None:
    axis = ctx.func.axis % (ctx.input_arrays[0].ndim + 1)
    _ops.unsqueeze(ctx, ctx.inputs[0], [axis], out=ctx.outputs[0])


@converter(Squeeze)
def convert_squeeze(ctx: ConversionContext) -> None:
    shape = ctx.input_arrays[0].shape
    if ctx.func.axis is None:
        axes = [i for i, dim in enumerate(shape) if dim == 1]
    else:
        axes = sorted(a % len(shape) for a in ctx.func.axis)
    if axes:
        _ops.squeeze(ctx, ctx.inputs[0], axes, out=ctx.outputs[0])
    else:
        _identity(ctx, ctx.inputs[0], ctx.outputs[0])


@converter(Transpose)
def convert_transpose(ctx: ConversionContext) -> None:
    ndim = ctx.input_arrays[0].ndim
    axes = ctx.func.axes
    perm = list(range(ndim))[::-1] if axes is None else [a % ndim for a in axes]
    ctx.op('Transpose', [ctx.inputs[0]], ctx.outputs[0], perm=perm)


@converter(Swapaxes)
def convert_swapaxes(ctx: ConversionContext) -> None:
    ndim = ctx.input_arrays[0].ndim
    perm = list(range(ndim))
    a, b = ctx.func.axis1 % ndim, ctx.func.axis2 % ndim
    perm[a], perm[b] = perm[b], perm[a]
    _transpose(ctx, ctx.inputs[0], perm, ctx.outputs[0])


@converter(Moveaxis)
def convert_moveaxis(ctx: ConversionContext) -> None:
    perm = _moveaxis_perm(ctx.input_arrays[0].ndim, ctx.func.source, ctx.func.destination)
    _transpose(ctx, ctx.inputs[0], perm, ctx.outputs[0])


@converter(Rollaxis)
def convert_rollaxis(ctx: ConversionContext) -> None:
    axis, position = ctx.func._moved  # set by forward: moveaxis(x, axis, position)
    perm = _moveaxis_perm(ctx.input_arrays[0].ndim, [axis], [position])
    _transpose(ctx, ctx.inputs[0], perm, ctx.outputs[0])


@converter(Depth2Space)
def convert_depth2space(ctx: ConversionContext) -> None:
    # ONNX's default DCR layout is catena's: channel (i * r + j) * C + c.
    ctx.op('DepthToSpace', [ctx.inputs[0]], ctx.outputs[0], blocksize=ctx.func.r)


@converter(Space2Depth)
def convert_space2depth(ctx: ConversionContext) -> None:
    ctx.op('SpaceToDepth', [ctx.inputs[0]], ctx.outputs[0], blocksize=ctx.func.r)


@converter(BroadcastTo)
def convert_broadcast_to(ctx: ConversionContext) -> None:
    _expand(ctx, ctx.inputs[0], ctx.input_arrays[0].shape, ctx.func._shape, ctx.outputs[0])


@converter(Broadcast)
def convert_broadcast(ctx: ConversionContext) -> None:
    shape = numpy.broadcast_shapes(*(array.shape for array in ctx.input_arrays))
    for x, array, out in zip(ctx.inputs, ctx.input_arrays, ctx.outputs):
        _expand(ctx, x, array.shape, shape, out)


# ------------------------------------------------------------ joining

@converter(Concat)
def convert_concat(ctx: ConversionContext) -> None:
    axis = ctx.func.axis % ctx.input_arrays[0].ndim
    _concat(ctx, ctx.inputs, axis, ctx.outputs[0])


@converter(Stack)
def convert_stack(ctx: ConversionContext) -> None:
    axis = ctx.func.axis % (ctx.input_arrays[0].ndim + 1)
    if len(ctx.inputs) == 1:
        _ops.unsqueeze(ctx, ctx.inputs[0], [axis], out=ctx.outputs[0])
        return
    xs = [_ops.unsqueeze(ctx, x, [axis]) for x in ctx.inputs]
    _concat(ctx, xs, axis, ctx.outputs[0])


@converter(Hstack)
def convert_hstack(ctx: ConversionContext) -> None:
    ndim = ctx.input_arrays[0].ndim
    xs = list(ctx.inputs)
    if ndim == 0:
        xs = [_ops.unsqueeze(ctx, x, [0]) for x in xs]
    _concat(ctx, xs, 0 if ndim <= 1 else 1, ctx.outputs[0])


@converter(Vstack)
def convert_vstack(ctx: ConversionContext) -> None:
    ndim = ctx.input_arrays[0].ndim
    xs = list(ctx.inputs)
    if ndim < 2:  # () -> (1, 1), (N,) -> (1, N)
        xs = [_ops.unsqueeze(ctx, x, [0, 1][:2 - ndim]) for x in xs]
    _concat(ctx, xs, 0, ctx.outputs[0])


@converter(Dstack)
def convert_dstack(ctx: ConversionContext) -> None:
    ndim = ctx.input_arrays[0].ndim
    new_axes = {0: [0, 1, 2], 1: [0, 2], 2: [2]}.get(ndim, [])
    xs = list(ctx.inputs)
    if new_axes:  # () -> (1, 1, 1), (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
        xs = [_ops.unsqueeze(ctx, x, new_axes) for x in xs]
    _concat(ctx, xs, 2, ctx.outputs[0])


@converter(Tile)
def convert_tile(ctx: ConversionContext) -> None:
    x = ctx.inputs[0]
    ndim = ctx.input_arrays[0].ndim
    reps = list(ctx.func.reps)
    if len(reps) > ndim:
        x = _ops.unsqueeze(ctx, x, list(range(len(reps) - ndim)))
    reps = [1] * (ndim - len(reps)) + reps
    if not reps:  # a 0-d input tiled by ()
        _identity(ctx, x, ctx.outputs[0])
        return
    ctx.op('Tile', [x, ctx.ints(reps)], ctx.outputs[0])


@converter(Repeat)
def convert_repeat(ctx: ConversionContext) -> None:
    """A Gather whose indices repeat each position ``repeats`` times."""
    x = ctx.inputs[0]
    shape = ctx.input_arrays[0].shape
    if ctx.func.axis is None:
        x = _ops.reshape(ctx, x, [-1])
        axis, length = 0, int(numpy.prod(shape))
    else:
        axis = ctx.func.axis % len(shape)
        length = shape[axis]
    repeats = ctx.func.repeats[0] if len(ctx.func.repeats) == 1 else ctx.func.repeats
    _gather(ctx, x, numpy.repeat(numpy.arange(length), repeats), axis, ctx.outputs[0])


# ------------------------------------------------------------ splitting

@converter(SplitAxis)
def convert_split_axis(ctx: ConversionContext) -> None:
    x = ctx.inputs[0]
    axis = ctx.func._axis
    bounds = ctx.func._bounds_used
    sizes = [right - left for left, right in zip(bounds, bounds[1:])]
    if len(sizes) > 1 and all(sizes):
        _ops.split(ctx, x, sizes, axis, ctx.outputs)
        return
    for left, right, out in zip(bounds, bounds[1:], ctx.outputs):
        _ops.slice_(ctx, x, [left], [right], [axis], out=out)


@converter(Separate)
def convert_separate(ctx: ConversionContext) -> None:
    axis = ctx.func._axis
    for i, out in enumerate(ctx.outputs):
        _gather(ctx, ctx.inputs[0], i, axis, out)  # a 0-d index drops the axis


@converter(TransposeSequence)
def convert_transpose_sequence(ctx: ConversionContext) -> None:
    """Output ``t`` concatenates row ``t`` of every input longer than ``t``."""
    lengths = [len(array) for array in ctx.input_arrays]
    for t, out in enumerate(ctx.outputs):
        rows = [_ops.slice_(ctx, x, [t], [t + 1], [0])
                for x, length in zip(ctx.inputs, lengths) if length > t]
        _concat(ctx, rows, 0, out)


# ------------------------------------------------------------ reordering

@converter(Flip)
def convert_flip(ctx: ConversionContext) -> None:
    _flip(ctx, ctx.func.axis)


@converter(FlipLR)
def convert_fliplr(ctx: ConversionContext) -> None:
    _flip(ctx, 1)


@converter(FlipUD)
def convert_flipud(ctx: ConversionContext) -> None:
    _flip(ctx, 0)


def _argsort(ctx: ConversionContext, indices: str, n: int) -> str:
    """The inverse of the permutation ``indices`` (of length ``n``), as int64."""
    # The ascending order of the values is the inverse permutation: TopK of
    # the negated values (TopK takes floating point input before opset 11).
    negated = ctx.op('Neg', [_ops.cast(ctx, indices, numpy.float64)])
    if ctx.opset >= 10:
        outputs = ctx.node('TopK', [negated, ctx.ints([n])], 2, axis=0)
    else:
        outputs = ctx.node('TopK', [negated], 2, axis=0, k=n)
    return outputs[1]


@converter(Permutate)
def convert_permutate(ctx: ConversionContext) -> None:
    x, = ctx.inputs
    axis = ctx.func.axis % ctx.input_arrays[0].ndim
    indices = ctx.graph_input(ctx.func.indices)
    if indices is None:
        order = _trace.host_array(ctx.func.indices).astype(numpy.int64)
        _gather(ctx, x, numpy.argsort(order) if ctx.func.inv else order, axis, ctx.outputs[0])
        return
    # The permutation is a graph input: the graph permutes by its value at run time.
    if ctx.func.inv:
        indices = _argsort(ctx, indices, len(ctx.func.indices))
    elif ctx.func.indices.dtype not in (numpy.int32, numpy.int64):
        indices = _ops.cast(ctx, indices, numpy.int64)  # Gather takes int32 or int64
    ctx.op('Gather', [x, indices], ctx.outputs[0], axis=axis)


@converter(SelectItem, opset=(7, 10))
def convert_select_item_flat(ctx: ConversionContext) -> None:
    """``x.ravel()[arange(B) * N + t]``."""
    x, t = ctx.inputs
    batch, n = ctx.input_arrays[0].shape
    rows = ctx.const(numpy.arange(batch, dtype=ctx.input_arrays[1].dtype) * n)
    flat = _ops.reshape(ctx, x, [-1])
    ctx.op('Gather', [flat, ctx.op('Add', [t, rows])], ctx.outputs[0], axis=0)


@converter(SelectItem, opset=(11, None))
def convert_select_item(ctx: ConversionContext) -> None:
    x, t = ctx.inputs
    picked = ctx.op('GatherElements', [x, _ops.unsqueeze(ctx, t, [1])], axis=1)
    _ops.squeeze(ctx, picked, [1], out=ctx.outputs[0])


@converter(Where, opset=(9, None))
def convert_where(ctx: ConversionContext) -> None:
    condition = _constant(ctx, _trace.host_array(ctx.func.condition).astype(numpy.bool_))
    ctx.node('Where', [condition, *ctx.inputs], ctx.outputs)


# ------------------------------------------------------------ indexing

def _index_entries(slices: Sequence[Any], ndim: int) -> list[tuple[int, Any]]:
    """``slices`` as ``(position in slices, entry)`` with Ellipsis expanded into
    full slices and boolean masks into integer arrays (one per axis they span)."""
    used = 0
    for s in slices:
        if s is None or s is Ellipsis:
            continue
        used += s.ndim if hasattr(s, 'dtype') and s.dtype == numpy.bool_ else 1
    entries: list[tuple[int, Any]] = []
    expanded = False
    for position, s in enumerate(slices):
        if isinstance(s, (bool, numpy.bool_)):
            raise NotImplementedError('GetItem: a 0-d boolean index is not supported')
        if isinstance(s, numpy.integer):
            s = int(s)
        if s is Ellipsis:
            if not expanded:
                entries += [(position, slice(None))] * (ndim - used)
                expanded = True
        elif hasattr(s, 'dtype'):
            host = _trace.host_array(s)
            if host.dtype == numpy.bool_:
                if host.ndim == 0:
                    raise NotImplementedError('GetItem: a 0-d boolean index is not supported')
                entries += [(position, index) for index in numpy.nonzero(host)]
            elif host.dtype.kind in 'iu':
                entries.append((position, host.astype(numpy.int64)))
            else:
                raise NotImplementedError(f'GetItem: an index array of dtype {host.dtype}')
        else:
            entries.append((position, s))
    if not expanded:
        entries += [(len(slices), slice(None))] * (ndim - used)
    return entries


def _apply_slices(ctx: ConversionContext, x: str, axis_slices: Sequence[tuple[int, slice]],
                  shape: Sequence[int]) -> str:
    """Applies ``(axis, slice)`` pairs (the axes are kept)."""
    starts, ends, axes, steps = [], [], [], []
    for axis, s in axis_slices:
        step = 1 if s.step is None else int(s.step)
        if s == slice(None) or s == slice(None, None, 1):
            continue
        if step != 1 and ctx.opset < 10:
            x = _gather(ctx, x, numpy.arange(shape[axis])[s], axis)
            continue
        starts.append(s.start if s.start is not None else (0 if step > 0 else _INT64_MAX))
        ends.append(s.stop if s.stop is not None else (_INT64_MAX if step > 0 else _INT64_MIN))
        axes.append(axis)
        steps.append(step)
    if axes:
        x = _ops.slice_(ctx, x, [int(v) for v in starts], [int(v) for v in ends], axes,
                        None if all(step == 1 for step in steps) else steps)
    return x


@converter(GetItem)
def convert_get_item(ctx: ConversionContext) -> None:
    """Basic indexing as Slice, Squeeze and Unsqueeze; integer (and boolean)
    arrays as a Gather (a GatherND for several since opset 11)."""
    x = ctx.inputs[0]
    shape = ctx.input_arrays[0].shape
    entries = _index_entries(ctx.func.slices, len(shape))
    advanced = any(isinstance(s, numpy.ndarray) for _, s in entries)
    # Walk the entries: which input axis each consumes, and the basic part.
    axis_slices: list[tuple[int, slice]] = []
    int_axes: list[int] = []
    arrays: list[tuple[int, int, numpy.ndarray]] = []  # (position, axis, indices)
    axis = 0
    for position, s in entries:
        if s is None:
            continue
        if isinstance(s, slice):
            axis_slices.append((axis, s))
        elif advanced:  # with arrays, ints are 0-d arrays: NumPy places them alike
            index = numpy.asarray(s, dtype=numpy.int64)
            arrays.append((position, axis, numpy.where(index < 0, index + shape[axis], index)))
        else:
            i = int(s)
            axis_slices.append((axis, slice(i, i + 1 if i != -1 else None)))
            int_axes.append(axis)
        axis += 1
    x = _apply_slices(ctx, x, axis_slices, shape)
    out = ctx.outputs[0]
    if not advanced:
        kept = [s for _, s in entries if not isinstance(s, int)]
        new_axes = [i for i, s in enumerate(kept) if s is None]
        if int_axes and new_axes:
            x = _ops.squeeze(ctx, x, int_axes)
        elif int_axes:
            _ops.squeeze(ctx, x, int_axes, out=out)
            return
        if new_axes:
            _ops.unsqueeze(ctx, x, new_axes, out=out)
        else:
            _identity(ctx, x, out)
        return
    _advanced_index(ctx, x, entries, arrays, axis_slices, out)


def _advanced_index(ctx: ConversionContext, x: str, entries: Sequence[tuple[int, Any]],
                    arrays: Sequence[tuple[int, int, numpy.ndarray]],
                    axis_slices: Sequence[tuple[int, slice]], out: str) -> None:
    """Gathers the (already sliced) ``x`` at the integer ``arrays`` and lays the
    axes out as NumPy does: the broadcast index axes replace the indexed axes
    when these are adjacent in the index, else they come first."""
    shape = ctx.input_arrays[0].shape
    indices = numpy.broadcast_arrays(*(index for _, _, index in arrays))
    n_index = indices[0].ndim
    index_labels = [('index', k) for k in range(n_index)]
    rest = [axis for axis, _ in axis_slices]
    if len(arrays) == 1:
        axis = arrays[0][1]
        x = _gather(ctx, x, indices[0], axis)
        current = ([('axis', a) for a in rest if a < axis] + index_labels
                   + [('axis', a) for a in rest if a > axis])
    else:
        axes = [axis for _, axis, _ in arrays]
        x = _transpose(ctx, x, axes + rest)
        if ctx.opset >= 11:
            x = ctx.op('GatherND', [x, ctx.const(numpy.stack(indices, axis=-1))])
        else:  # one flat index into the indexed axes, merged into one
            sizes = [shape[a] for a in axes]
            flat = numpy.ravel_multi_index(tuple(indices), sizes)
            sliced = [len(range(*s.indices(shape[a]))) for a, s in axis_slices]
            x = _ops.reshape(ctx, x, [int(numpy.prod(sizes))] + sliced)
            x = _gather(ctx, x, flat, 0)
        current = index_labels + [('axis', a) for a in rest]
    positions = [position for position, _, _ in arrays]
    adjacent = sorted(set(positions)) == list(range(min(positions), max(positions) + 1))
    target: list[tuple[str, int]] = [] if adjacent else list(index_labels)
    axis = 0
    n_new = 0
    for _, s in entries:
        if s is None:
            target.append(('new', n_new))
            n_new += 1
            continue
        if isinstance(s, slice):
            target.append(('axis', axis))
        elif adjacent and axis == arrays[0][1]:
            target += index_labels
        axis += 1
    if n_new:
        x = _ops.unsqueeze(ctx, x, list(range(len(current), len(current) + n_new)))
        current += [('new', k) for k in range(n_new)]
    _transpose(ctx, x, [current.index(label) for label in target], out)


@converter(AsStrided)
def convert_as_strided(ctx: ConversionContext) -> None:
    """A Gather from the flattened input at the element indices the view reads."""
    func = ctx.func
    size = int(numpy.prod(ctx.input_arrays[0].shape))
    positions = numpy.arange(size, dtype=numpy.int64)[func.storage_offset:]
    view = numpy.lib.stride_tricks.as_strided(
        positions, func.shape, tuple(s * positions.itemsize for s in func.strides))
    flat = _ops.reshape(ctx, ctx.inputs[0], [-1])
    _gather(ctx, flat, numpy.array(view), 0, ctx.outputs[0])


@converter(Diagonal)
def convert_diagonal(ctx: ConversionContext) -> None:
    """Moves the two axes last, merges them, and gathers the diagonal's elements."""
    func = ctx.func
    shape = ctx.input_arrays[0].shape
    ndim = len(shape)
    a1, a2 = func.axis1 % ndim, func.axis2 % ndim
    rows, cols = shape[a1], shape[a2]
    x = _transpose(ctx, ctx.inputs[0], [a for a in range(ndim) if a not in (a1, a2)] + [a1, a2])
    x = _ops.reshape(ctx, x, [0] * (ndim - 2) + [rows * cols])
    first_row, first_col = max(-func.offset, 0), max(func.offset, 0)
    length = max(0, min(rows - first_row, cols - first_col))
    steps = numpy.arange(length)
    _gather(ctx, x, (steps + first_row) * cols + steps + first_col, ndim - 2, ctx.outputs[0])


@converter(ScatterAdd, opset=(11, None))
def convert_scatter_add(ctx: ConversionContext) -> None:
    """``a`` and ``b`` flattened, ``b`` scattered onto the flat positions ``slices``
    selects (repeated positions need ScatterElements' ``add``, opset 16)."""
    func = ctx.func
    a, b = ctx.inputs
    shape = ctx.input_arrays[0].shape
    positions = numpy.arange(int(numpy.prod(shape)), dtype=numpy.int64).reshape(shape)
    selected = positions[func.slices if func._advanced else func._view_key]
    flat_index = numpy.ascontiguousarray(selected).ravel()
    index = ctx.const(flat_index)
    flat_a = _ops.reshape(ctx, a, [-1])
    flat_b = _ops.reshape(ctx, b, [-1])
    if ctx.opset >= 16:
        flat = ctx.op('ScatterElements', [flat_a, index, flat_b], axis=0, reduction='add')
    else:
        if len(numpy.unique(flat_index)) != len(flat_index):
            raise NotImplementedError(
                f'ScatterAdd: slices that select an element twice need opset 16 or newer '
                f'(ScatterElements with reduction "add"), not {ctx.opset}')
        summed = ctx.op('Add', [ctx.op('Gather', [flat_a, index], axis=0), flat_b])
        flat = ctx.op('ScatterElements', [flat_a, index, summed], axis=0)
    _ops.reshape(ctx, flat, shape, out=ctx.outputs[0])


# ------------------------------------------------------------ padding

def _pad_gather(ctx: ConversionContext, x: str, widths: numpy.ndarray, shape: Sequence[int],
                mode: Any) -> str:
    """Pads axis by axis with a Gather of the positions ``numpy.pad`` copies."""
    for axis, (before, after) in enumerate(widths.tolist()):
        if before or after:
            source = numpy.pad(numpy.arange(shape[axis]), [before, after], mode=mode)
            x = _gather(ctx, x, source, axis)
    return x


@converter(Pad)
def convert_pad(ctx: ConversionContext) -> None:
    """``constant`` and ``edge`` as ONNX's Pad, ``reflect`` too when every width is
    shorter than its axis; ``symmetric``, ``wrap`` and wide reflections as Gathers."""
    func = ctx.func
    x = ctx.inputs[0]
    array = ctx.input_arrays[0]
    widths = numpy.asarray(func._widths, dtype=numpy.int64)
    pads = widths[:, 0].tolist() + widths[:, 1].tolist()
    keywords = dict(func.keywords)
    mode = func.mode
    out = ctx.outputs[0]
    if mode == 'constant':
        values = numpy.broadcast_to(
            numpy.asarray(keywords.pop('constant_values', 0)), (array.ndim, 2)).astype(array.dtype)
        if keywords:
            raise NotImplementedError(f'Pad: the keywords {sorted(keywords)} of mode "constant"')
        if (values == values.flat[0]).all() or not widths.any():
            _ops.pad(ctx, x, pads, 'constant', values.flat[0], out=out, value_dtype=array.dtype)
            return
        # One Pad per side and axis, axis after axis: NumPy fills the corners
        # with the values of the later axes, as these pads do.
        sides = [(axis, side) for axis in range(array.ndim) for side in (0, 1)
                 if widths[axis, side]]
        for k, (axis, side) in enumerate(sides):
            single = [0] * (2 * array.ndim)
            single[side * array.ndim + axis] = int(widths[axis, side])
            x = _ops.pad(ctx, x, single, 'constant', values[axis, side],
                         out=out if k == len(sides) - 1 else None, value_dtype=array.dtype)
        return
    if keywords.pop('reflect_type', 'even') != 'even' or keywords or not isinstance(mode, str) \
            or mode not in ('edge', 'reflect', 'symmetric', 'wrap'):
        raise NotImplementedError(f'Pad: mode {mode!r} with keywords {func.keywords!r} '
                                  '(supported: constant, edge, reflect, symmetric, wrap)')
    fits = all(before < dim and after < dim for (before, after), dim
               in zip(widths.tolist(), array.shape) if before or after)
    if mode == 'edge' or (mode == 'reflect' and fits):
        _ops.pad(ctx, x, pads, mode, out=out)
    else:
        _identity(ctx, _pad_gather(ctx, x, widths, array.shape, mode), out)


@converter(PadSequence)
def convert_pad_sequence(ctx: ConversionContext) -> None:
    """Each sequence extended by a constant block of ``padding``, then stacked."""
    first = ctx.input_arrays[0]
    lengths = [len(array) for array in ctx.input_arrays]
    length = max(lengths) if ctx.func.length is None else ctx.func.length
    rows = []
    for x, n in zip(ctx.inputs, lengths):
        if n < length:
            block = numpy.full((length - n,) + first.shape[1:], ctx.func.padding, first.dtype)
            x = ctx.op('Concat', [x, ctx.const(block)], axis=0)
        rows.append(_ops.unsqueeze(ctx, x, [0]))
    _concat(ctx, rows, 0, ctx.outputs[0])


# ------------------------------------------------------------ images

def _resize_gather(ctx: ConversionContext, x: str, in_size: Sequence[int],
                   out_size: Sequence[int], out: str) -> None:
    """Resizing as catena computes it: per axis, a weighted sum of Gathers."""
    func = ctx.func
    dtype = ctx.input_arrays[0].dtype
    for k, axis in enumerate((2, 3)):
        index, weights = _source_positions(in_size[k], out_size[k], func.mode,
                                           func.align_corners)
        last = out if k == 1 else None
        if weights.shape[1] == 1:
            x = _gather(ctx, x, index[:, 0], axis, last)
            continue
        terms = []
        for m in range(index.shape[1]):
            column = weights[:, m].astype(dtype).reshape((-1,) + (1,) * (3 - axis))
            terms.append(ctx.op('Mul', [_gather(ctx, x, index[:, m], axis),
                                            ctx.const(column)]))
        x = ctx.op('Add', terms, last)


@converter(ResizeImages)
def convert_resize_images(ctx: ConversionContext) -> None:
    """Bilinear: Resize (align_corners or half_pixel) since opset 11, Gathers and
    weights before; nearest (``floor(i * h / h_O)``): Gathers."""
    func = ctx.func
    x = ctx.inputs[0]
    array = ctx.input_arrays[0]
    out_size = (func.out_H, func.out_W)
    if func.mode == 'nearest' or ctx.opset < 11:
        _resize_gather(ctx, x, array.shape[2:], out_size, ctx.outputs[0])
        return
    if ctx.dynamic:
        lead = _ops.slice_(ctx, ctx.op('Shape', [x]), [0], [2], [0])
        sizes = ctx.op('Concat', [lead, ctx.ints(out_size)], axis=0)
    else:
        sizes = ctx.ints(array.shape[:2] + out_size)
    empty = ctx.const(numpy.zeros(0, numpy.float32))
    # onnxruntime has no float64 Resize: it runs in float32.
    wide = array.dtype == numpy.float64
    resized = ctx.op('Resize', [_ops.cast(ctx, x, numpy.float32) if wide else x, empty,
                                    empty, sizes],
                    None if wide else ctx.outputs[0], mode='linear',
                    coordinate_transformation_mode=('align_corners' if func.align_corners
                                                    else 'half_pixel'))
    if wide:
        _ops.cast(ctx, resized, array.dtype, out=ctx.outputs[0])


@converter(Im2Col)
def convert_im2col(ctx: ConversionContext) -> None:
    """Pads as catena's im2col does, then gathers every window's pixels from the
    flattened image: ``(n, c, kh, kw, out_h, out_w)``, reshaped."""
    func = ctx.func
    array = ctx.input_arrays[0]
    n, c, h, w = array.shape
    out_h = conv.get_conv_outsize(h, func.kh, func.sy, func.ph, func.cover_all, func.dy)
    out_w = conv.get_conv_outsize(w, func.kw, func.sx, func.pw, func.cover_all, func.dx)
    ext_h = max(h + 2 * func.ph, (func.kh - 1) * func.dy + func.sy * (out_h - 1) + 1)
    ext_w = max(w + 2 * func.pw, (func.kw - 1) * func.dx + func.sx * (out_w - 1) + 1)
    x = ctx.inputs[0]
    if (ext_h, ext_w) != (h, w):
        x = _ops.pad(ctx, x, [0, 0, func.ph, func.pw, 0, 0, ext_h - h - func.ph,
                              ext_w - w - func.pw], value_dtype=array.dtype)
    x = _ops.reshape(ctx, x, [0, 0, ext_h * ext_w])
    rows = (numpy.arange(func.kh)[:, None, None, None] * func.dy
            + numpy.arange(out_h)[None, None, :, None] * func.sy)
    cols = (numpy.arange(func.kw)[None, :, None, None] * func.dx
            + numpy.arange(out_w)[None, None, None, :] * func.sx)
    columns = _gather(ctx, x, rows * ext_w + cols, 2)
    _ops.reshape(ctx, columns, [0, c * func.kh * func.kw, out_h, out_w], out=ctx.outputs[0])


@converter(SpatialTransformerGrid)
def convert_spatial_transformer_grid(ctx: ConversionContext) -> None:
    height, width = ctx.func.output_shape
    theta = ctx.input_arrays[0]
    coords = ctx.const(_target_coordinates(height, width).astype(theta.dtype))
    grid = ctx.op('MatMul', [ctx.inputs[0], coords])
    _ops.reshape(ctx, grid, [0, 2, height, width], out=ctx.outputs[0])


@converter(SpatialTransformerSampler, opset=(16, None))
def convert_spatial_transformer_sampler(ctx: ConversionContext) -> None:
    """GridSample with corner-aligned coordinates and zero padding; catena's grid is
    ``(n, 2, h, w)`` (x then y), GridSample's ``(n, h, w, 2)``."""
    x, grid = ctx.inputs
    # onnxruntime has no float64 GridSample before opset 20: it runs in float32.
    wide = ctx.input_arrays[0].dtype == numpy.float64 and ctx.opset < 20
    if wide:
        x = _ops.cast(ctx, x, numpy.float32)
        grid = _ops.cast(ctx, grid, numpy.float32)
    points = ctx.op('Transpose', [grid], perm=[0, 2, 3, 1])
    sampled = ctx.op('GridSample', [x, points], None if wide else ctx.outputs[0],
                    mode='bilinear' if ctx.opset < 20 else 'linear', padding_mode='zeros',
                    align_corners=1)
    if wide:
        _ops.cast(ctx, sampled, numpy.float64, out=ctx.outputs[0])
