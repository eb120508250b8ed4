"""``local_convolution_2d``: a 2-d convolution whose filters differ at every output position."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.im2col import Col2Im, Im2Col, im2col
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.connection import _conv_core
from catena.functions.math.matmul import matmul
from catena.functions.math.sum import sum as _sum
from catena.utils import conv, type_check
from catena.variable import Variable


def _invalid(expect: str, actual: str) -> type_check.InvalidType:
    return type_check.InvalidType(
        expect, actual, 'Invalid operation is performed in: local_convolution_2d\n\n'
        f'Expect: {expect}\nActual: {actual}\n')


def _check_shapes(x_shape: tuple[int, ...], w_shape: tuple[int, ...],
                  b_shape: tuple[int, ...] | None, stride: tuple[int, int]) -> None:
    shapes = f'x.shape={x_shape}, W.shape={w_shape}'
    if len(x_shape) != 4 or len(w_shape) != 6:
        raise _invalid('x.ndim == 4 and W.ndim == 6 (x: (n, c_in, h, w), W: (c_out, out_h, '
                       'out_w, c_in, kh, kw))', shapes)
    if x_shape[1] != w_shape[3]:
        raise _invalid('x.shape[1] == W.shape[3] (the input channels)',
                       f'{x_shape[1]} != {w_shape[3]} ({shapes})')
    outs = tuple((size - k) // s + 1 for size, k, s in zip(x_shape[2:], w_shape[4:], stride))
    if outs != tuple(w_shape[1:3]):
        raise ValueError(
            f'local_convolution_2d: the output size {outs} of the {w_shape[4:]} kernel with '
            f'stride {stride} does not match the {tuple(w_shape[1:3])} positions of W: {shapes}')
    if b_shape is not None and tuple(b_shape) != tuple(w_shape[:3]):
        raise _invalid('b.shape == W.shape[:3] (c_out, out_h, out_w)',
                       f'{tuple(b_shape)} != {tuple(w_shape[:3])}')


class LocalConvolution2DFunction(FunctionNode):
    """Unshared 2-d convolution: inputs ``x`` ``(n, c_in, h, w)``, ``W`` and maybe ``b``.

    ``W`` is ``(c_out, out_h, out_w, c_in, kh, kw)`` and may have another
    float dtype than ``x``; ``b`` is ``(c_out, out_h, out_w)`` in ``x``'s
    dtype. The output has ``x``'s dtype. See :func:`local_convolution_2d`.

    Args:
        stride: The stride, an int or a pair.
    """

    def __init__(self, stride: Any = 1) -> None:
        self.sy, self.sx = _conv_core.as_params(stride, 2, 'stride', 1)

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(x_type.dtype.kind == 'f', w_type.dtype.kind == 'f')
        b_shape = None
        if type_check.eval(n_in) == 3:
            type_check.expect(in_types[2].dtype == x_type.dtype)
            b_shape = tuple(type_check.eval(in_types[2].shape))
        _check_shapes(tuple(type_check.eval(x_type.shape)),
                      tuple(type_check.eval(w_type.shape)), b_shape, (self.sy, self.sx))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        n = x.shape[0]
        c_out, out_h, out_w, c_in, kh, kw = W.shape
        positions, taps = out_h * out_w, c_in * kh * kw
        col = conv.im2col(x, kh, kw, self.sy, self.sx, 0, 0)  # (n, c_in, kh, kw, oh, ow)
        col = col.transpose(4, 5, 0, 1, 2, 3).reshape(positions, n, taps)
        w = W.reshape(c_out, positions, taps).transpose(1, 2, 0)
        # (positions, n, taps) @ (positions, taps, c_out) -> (positions, n, c_out)
        y = xp.matmul(col, w)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        y = xp.ascontiguousarray(y.reshape(out_h, out_w, n, c_out).transpose(2, 3, 0, 1))
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        n, _, h, w_size = x.shape
        c_out, out_h, out_w, c_in, kh, kw = W.shape
        positions, taps = out_h * out_w, c_in * kh * kw
        gy_p = reshape(transpose(gy, (2, 3, 0, 1)), (positions, n, c_out))
        ret: list[Any] = []
        if 0 in indexes:
            w = W if W.dtype == x.dtype else _as_dtype(W, x.dtype)
            w = transpose(reshape(w, (c_out, positions, taps)), (1, 0, 2))
            gcol = matmul(gy_p, w)  # (positions, n, taps)
            gcol = transpose(reshape(gcol, (out_h, out_w, n, taps)), (2, 3, 0, 1))
            unfold = Im2Col((kh, kw), (self.sy, self.sx))
            ret.append(Col2Im(unfold, (h, w_size)).apply((gcol,))[0])
        if 1 in indexes:
            col = im2col(x, (kh, kw), (self.sy, self.sx))  # (n, taps, oh, ow)
            col = reshape(transpose(col, (2, 3, 0, 1)), (positions, n, taps))
            gw = matmul(gy_p, col, transa=True)  # (positions, c_out, taps)
            gw = reshape(transpose(gw, (1, 0, 2)), W.shape)
            ret.append(_conv_core.as_weight_dtype(gw, W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=0))
        return tuple(ret)


def _as_dtype(w: Variable, dtype: Any) -> Variable:
    from catena.functions.array.cast import cast

    return cast(w, dtype)


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: Any = 1) -> Variable:
    """Two-dimensional locally connected layer (unshared convolution).

    Like :func:`~catena.functions.convolution_2d` without padding, but the
    filter is different at each output position:

    .. math::

        y_{n, o, i, j} = b_{o, i, j} + \\sum_{c, p, q} W_{o, i, j, c, p, q}\\,
        x_{n, c, s_y i + p, s_x j + q}

    Computed as an im2col and one batched product over the output positions.

    Args:
        x: Input images of shape ``(n, c_in, h, w)``.
        W: Filters of shape ``(c_out, out_h, out_w, c_in, kh, kw)``, where
            ``out_h = (h - kh) // s_y + 1`` and likewise ``out_w``. Its float
            dtype may differ from ``x``'s (its gradient has its own).
        b: Bias of shape ``(c_out, out_h, out_w)`` in ``x``'s dtype, or None.
        stride: The stride, an int or a pair.

    Returns:
        Variable: Output of shape ``(n, c_out, out_h, out_w)`` in ``x``'s dtype.

    Raises:
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the ranks, channel counts or bias shape do not match.
        ValueError: If the output size of the kernel does not match ``W``.

    .. admonition:: Example

        >>> x = np.ones((1, 1, 3, 3), dtype=np.float32)
        >>> W = np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1, 1, 1)
        >>> F.local_convolution_2d(x, W, stride=2).array
        array([[[[0., 1.],
                 [2., 3.]],
        <BLANKLINE>
                [[4., 5.],
                 [6., 7.]]]], dtype=float32)
    """
    node = LocalConvolution2DFunction(stride)
    try:
        _check_shapes(tuple(x.shape), tuple(W.shape), None if b is None else tuple(b.shape),
                      (node.sy, node.sx))
    except AttributeError:
        _arguments.blame('local_convolution_2d', x=x, W=W, b=b, optional=('b',))
        raise
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]
