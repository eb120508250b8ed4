"""The cuDNN convolutions that the (de)convolution kernels share: geometry, graphs, runs.

Every cuDNN convolution is described by the forward convolution it belongs
to, a :class:`ConvGeometry`: ``x`` ``(n, c, *dims)`` and ``W`` ``(k, c /
groups, *ksize)`` give ``y`` ``(n, k, *outs)``. The three cuDNN operations
read and write different tensors of it:

* ``fprop`` computes ``y`` from ``x`` and ``W`` (``Convolution2DFunction``,
  ``ConvolutionND``);
* ``dgrad`` computes ``x`` from ``y`` and ``W`` (``Deconvolution2DFunction``,
  ``DeconvolutionND``: a deconvolution's input is its convolution's ``y``,
  which is also how a convolution's input gradient is computed);
* ``wgrad`` computes ``W`` from ``x`` and ``y`` (``Convolution2DGradW``,
  ``ConvolutionNDGradW``).

Chainer's parameters map one to one: weights are cuDNN's KCRS, the padding
is symmetric (cuDNN's pre- and post-padding are both ``pad``), the dilation
is the same number, and cuDNN infers the groups from the channel counts
(``c / W.shape[1]``). cuDNN's output size is the floor formula of
:func:`catena.utils.conv.get_conv_outsize`; a ``cover_all`` that changes it
declines. 1-d convolutions get a trailing unit axis (cuDNN wants two spatial
axes at least); more than three spatial axes decline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy

from catena.backends import Fallback
from catena.utils import conv
from catena_cuda import _runtime
from catena_cuda.kernels import _cudnn

MAX_SPATIAL = 3
"""The most spatial axes of a cuDNN convolution here."""


class ConvGeometry(NamedTuple):
    """One forward convolution as cuDNN is told it (1-d already lifted to 2-d).

    Attributes:
        x_shape: ``(n, c, *dims)``.
        w_shape: ``(k, c / groups, *ksize)``.
        y_shape: ``(n, k, *outs)``.
        stride: Per spatial axis.
        pad: Per spatial axis (both sides).
        dilate: Per spatial axis.
        groups: The channel groups (``c / w_shape[1]``).
        dtype: The arrays' NumPy dtype name.
        lifted: Whether a 1-d convolution got a trailing unit axis.
    """

    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]
    y_shape: tuple[int, ...]
    stride: tuple[int, ...]
    pad: tuple[int, ...]
    dilate: tuple[int, ...]
    groups: int
    dtype: str
    lifted: bool = False


def geometry(x_shape: tuple[int, ...], w_shape: tuple[int, ...], y_spatial: tuple[int, ...],
             stride: tuple[int, ...], pad: tuple[int, ...], dilate: tuple[int, ...],
             groups: int, dtype: Any) -> ConvGeometry | None:
    """The geometry of a convolution from ``x`` to an output of spatial shape ``y_spatial``.

    Returns:
        The :class:`ConvGeometry`, or None when cuDNN cannot compute it here:
        an unsupported dtype or number of axes, inconsistent channel counts,
        an empty array, or an output size other than the floor formula's
        (a ``cover_all`` that matters).
    """
    nd = len(x_shape) - 2
    if not 1 <= nd <= MAX_SPATIAL or len(w_shape) != nd + 2 or len(y_spatial) != nd:
        return None
    if not (len(stride) == len(pad) == len(dilate) == nd) or _cudnn.data_types(dtype) is None:
        return None
    c, k = x_shape[1], w_shape[0]
    if groups < 1 or c != w_shape[1] * groups or k % groups:
        return None
    floor = tuple(conv.get_conv_outsize(size, kk, s, p, False, d) for size, kk, s, p, d
                  in zip(x_shape[2:], w_shape[2:], stride, pad, dilate))
    if tuple(y_spatial) != floor:
        return None
    y_shape = (x_shape[0], k) + tuple(y_spatial)
    if min(x_shape + w_shape + y_shape) <= 0:
        return None
    name = numpy.dtype(dtype).name
    if nd == 1:
        return ConvGeometry(tuple(x_shape) + (1,), tuple(w_shape) + (1,), y_shape + (1,),
                            tuple(stride) + (1,), tuple(pad) + (0,), tuple(dilate) + (1,),
                            groups, name, True)
    return ConvGeometry(tuple(x_shape), tuple(w_shape), y_shape, tuple(stride), tuple(pad),
                        tuple(dilate), groups, name)


def fprop_geometry(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                   stride: tuple[int, ...], pad: tuple[int, ...], dilate: tuple[int, ...],
                   groups: int, cover_all: bool, dtype: Any) -> ConvGeometry | None:
    """The geometry of a forward convolution, or None (see :func:`geometry`)."""
    if len(x_shape) != len(w_shape) or len(x_shape) < 3:
        return None
    params = list(zip(x_shape[2:], w_shape[2:], stride, pad, dilate))
    outs = tuple(conv.get_conv_outsize(size, k, s, p, cover_all, d)
                 for size, k, s, p, d in params)
    return geometry(x_shape, w_shape, outs, stride, pad, dilate, groups, dtype)


def dgrad_geometry(dy_shape: tuple[int, ...], w_shape: tuple[int, ...],
                   stride: tuple[int, ...], pad: tuple[int, ...], dilate: tuple[int, ...],
                   groups: int, outs: tuple[int, ...], dtype: Any) -> ConvGeometry | None:
    """The geometry of a deconvolution of ``dy`` (the convolution's output) to ``outs``."""
    if len(dy_shape) != len(w_shape) or len(dy_shape) < 3:
        return None
    x_shape = (dy_shape[0], w_shape[1] * groups) + tuple(outs)
    g = geometry(x_shape, w_shape, tuple(dy_shape[2:]), stride, pad, dilate, groups, dtype)
    if g is not None and g.y_shape[:2] != tuple(dy_shape[:2]):
        return None
    return g


def wgrad_geometry(x_shape: tuple[int, ...], dy_shape: tuple[int, ...],
                   ksize: tuple[int, ...], stride: tuple[int, ...], pad: tuple[int, ...],
                   dilate: tuple[int, ...], groups: int, dtype: Any) -> ConvGeometry | None:
    """The geometry of a weight gradient from ``x`` and the output gradient ``dy``."""
    if len(x_shape) != len(dy_shape) or len(x_shape) < 3 or groups < 1:
        return None
    w_shape = (dy_shape[1], x_shape[1] // groups) + tuple(ksize)
    g = geometry(x_shape, w_shape, tuple(dy_shape[2:]), stride, pad, dilate, groups, dtype)
    if g is not None and g.y_shape[0] != dy_shape[0]:
        return None
    return g


# Which tensors each op reads and writes: (inputs, output), by name.
OPERANDS: dict[str, tuple[tuple[str, ...], str]] = {
    'fprop': (('x', 'w'), 'y'),
    'dgrad': (('dy', 'w'), 'dx'),
    'wgrad': (('x', 'dy'), 'dw'),
}


def tensor_shape(g: ConvGeometry, name: str) -> tuple[int, ...]:
    """The shape cuDNN is told for the tensor ``name`` of ``g``."""
    if name in ('x', 'dx'):
        return g.x_shape
    if name in ('w', 'dw'):
        return g.w_shape
    return g.y_shape


def graph_maker(op: str, g: ConvGeometry) -> _cudnn.GraphMaker:
    """Returns ``make(cudnn, handle)``, which builds the frontend graph of ``op`` on ``g``."""
    inputs, output = OPERANDS[op]

    def make(cudnn: Any, handle: Any) -> tuple[Any, Mapping[str, Any]]:
        io_name, compute_name = _cudnn.data_types(g.dtype) or ('', '')
        io, compute = _cudnn.cudnn_type(cudnn, io_name), _cudnn.cudnn_type(cudnn, compute_name)
        graph = cudnn.pygraph(name=f'catena_conv_{op}', io_data_type=io,
                              intermediate_data_type=compute, compute_data_type=compute,
                              handle=handle)
        tensors = {}
        for name in inputs:
            shape = tensor_shape(g, name)
            tensors[name] = graph.tensor(name=name, dim=list(shape),
                                         stride=list(_cudnn.row_major_strides(shape)),
                                         data_type=io)
        builder = {'fprop': graph.conv_fprop, 'dgrad': graph.conv_dgrad,
                   'wgrad': graph.conv_wgrad}[op]
        out = builder(*(tensors[name] for name in inputs), name=op,
                      pre_padding=list(g.pad), post_padding=list(g.pad), stride=list(g.stride),
                      dilation=list(g.dilate), compute_data_type=compute)
        shape = tensor_shape(g, output)
        out.set_output(True).set_data_type(io).set_dim(list(shape)).set_stride(
            list(_cudnn.row_major_strides(shape)))
        out.set_name(output)
        tensors[output] = out
        return graph, tensors

    return make


def run(op: str, g: ConvGeometry, arrays: Mapping[str, Any]) -> Any:
    """Runs ``op`` on ``g`` with the input CuPy ``arrays`` (by tensor name).

    Returns:
        The output array (in the caller's, unlifted shape), or
        :data:`catena.Fallback` when cuDNN declines the graph.
    """
    cupy = _runtime.cupy_module()
    inputs, output = OPERANDS[op]
    first = arrays[inputs[0]]
    device = first.device
    with device:
        buffers = {name: _cudnn.operand(arrays[name]).reshape(tensor_shape(g, name))
                   for name in inputs}
        shape = tensor_shape(g, output)
        out = cupy.empty(shape, first.dtype)
        buffers[output] = out
        plan = _cudnn.plan(f'conv_{op}', g, first.dtype, device.id, graph_maker(op, g), buffers)
        if plan is None:
            return Fallback
        _cudnn.execute(plan, buffers, device.id)
    return out.reshape(shape[:-1]) if g.lifted else out


def add_bias(y: Any, b: Any) -> Any:
    """``y += b`` over the channel axis, in place (as the generic code adds it)."""
    if b is not None:
        y += b.reshape((1, b.shape[0]) + (1,) * (y.ndim - 2))
    return y


def fprop(x: Any, W: Any, b: Any, stride: tuple[int, ...], pad: tuple[int, ...],
          dilate: tuple[int, ...], groups: int, cover_all: bool) -> Any:
    """``y = conv(x, W) + b`` on cuDNN, or :data:`catena.Fallback`."""
    if not _cudnn.usable():
        return Fallback
    g = fprop_geometry(x.shape, W.shape, stride, pad, dilate, groups, cover_all, x.dtype)
    if g is None or W.dtype != x.dtype:
        return Fallback
    y = run('fprop', g, {'x': x, 'w': W})
    return y if y is Fallback else add_bias(y, b)


def dgrad(x: Any, W: Any, b: Any, stride: tuple[int, ...], pad: tuple[int, ...],
          dilate: tuple[int, ...], groups: int, outs: tuple[int, ...]) -> Any:
    """The deconvolution of ``x`` by ``W`` to spatial size ``outs``, plus ``b``, or Fallback."""
    if not _cudnn.usable():
        return Fallback
    g = dgrad_geometry(x.shape, W.shape, stride, pad, dilate, groups, outs, x.dtype)
    if g is None or W.dtype != x.dtype:
        return Fallback
    y = run('dgrad', g, {'dy': x, 'w': W})
    return y if y is Fallback else add_bias(y, b)


def wgrad(x: Any, gy: Any, ksize: tuple[int, ...], stride: tuple[int, ...],
          pad: tuple[int, ...], dilate: tuple[int, ...], groups: int) -> Any:
    """The weight gradient of a convolution of ``x`` with output gradient ``gy``, or Fallback."""
    if not _cudnn.usable():
        return Fallback
    g = wgrad_geometry(x.shape, gy.shape, ksize, stride, pad, dilate, groups, x.dtype)
    if g is None or gy.dtype != x.dtype:
        return Fallback
    return run('wgrad', g, {'x': x, 'dy': gy})
