"""``linear``: the affine map ``y = x W^T + b`` of a fully connected layer."""

from __future__ import annotations

import math
from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable


class LinearFunction(FunctionNode):
    """``y = x W^T + b`` for ``x`` ``(n, in)``, ``W`` ``(out, in)`` and ``b`` ``(out,)``."""

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype.kind == 'f',
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        # One GEMM; BLAS reads the transposed view of W in place.
        y = backend.get_array_module(x).dot(x, W.T)
        # As in Chainer, W may have another float dtype; y has x's.
        y = y.astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(LinearGradData().apply((W, gy))[0])
        if 1 in indexes:
            ret.append(_as_dtype(LinearGradWeight().apply((x, gy))[0], W.dtype))
        if 2 in indexes:
            ret.append(_sum(gy, axis=0))
        return tuple(ret)


def _as_dtype(gradient: Variable, dtype: Any) -> Variable:
    if gradient.dtype == dtype:
        return gradient
    from catena.functions.array.cast import cast

    return cast(gradient, dtype)


class LinearGradData(FunctionNode):
    """The input gradient of :class:`LinearFunction`: ``gx = gy W`` from inputs ``(W, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        W, gy = inputs
        # gx has gy's (that is x's) dtype even when W has another one.
        return backend.get_array_module(gy).dot(gy, W).astype(gy.dtype, copy=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        W, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(_as_dtype(LinearGradWeight().apply((ggx, gy))[0], W.dtype))
        if 1 in indexes:
            ret.append(LinearFunction().apply((ggx, W))[0])
        return tuple(ret)


class LinearGradWeight(FunctionNode):
    """The weight gradient of :class:`LinearFunction`: ``gW = gy^T x`` from inputs ``(x, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        return backend.get_array_module(x).dot(gy.T, x),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(LinearGradData().apply((ggW, gy))[0])
        if 1 in indexes:
            ret.append(LinearFunction().apply((x, ggW))[0])
        return tuple(ret)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> Variable:
    """Linear function, or affine transformation: :math:`y = x W^\\top + b`.

    The leading ``n_batch_axes`` axes of ``x`` are batch axes; the remaining
    axes are flattened into the feature axis, whose length must be
    ``W.shape[1]``. The output has shape
    ``x.shape[:n_batch_axes] + (W.shape[0],)`` and the dtype of ``x``;
    ``W`` may have another floating-point dtype (its gradient has its own).

    Args:
        x: Input of shape ``(s_1, ..., s_n, in_size...)``.
        W: Weight of shape ``(out_size, in_size)``.
        b: Bias of shape ``(out_size,)``, or None.
        n_batch_axes: The number of batch axes of ``x`` (at least 1).

    Returns:
        Variable: Output of shape ``x.shape[:n_batch_axes] + (out_size,)``.

    Raises:
        ValueError: If ``n_batch_axes`` is not positive or not less than ``x.ndim``.
        InvalidType: If a dtype is not floating point, ``b``'s differs from
            ``x``'s, or the feature sizes do not match.

    .. admonition:: Example

        >>> x = np.array([[1.0, 2.0]], dtype=np.float32)
        >>> W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -1.0]], dtype=np.float32)
        >>> F.linear(x, W, np.ones(3, dtype=np.float32)).array
        array([[ 2.,  4., -1.]], dtype=float32)
    """
    if not hasattr(x, 'ndim'):
        raise TypeError(f'linear: x must be an array or a Variable; got {type(x).__name__}')
    if isinstance(n_batch_axes, bool) or not isinstance(n_batch_axes, int) or n_batch_axes < 1:
        raise ValueError(f'n_batch_axes must be a positive int; got {n_batch_axes!r}')
    if x.ndim <= n_batch_axes:
        raise ValueError(f'x must have more than n_batch_axes={n_batch_axes} axes (the batch '
                         f'axes and the feature axes); got x.shape={x.shape}')
    batch_shape = x.shape[:n_batch_axes]
    if x.ndim != 2 or n_batch_axes != 1:
        x = reshape(x, (math.prod(batch_shape), -1))
    args = (x, W) if b is None else (x, W, b)
    y = LinearFunction().apply(args)[0]
    if n_batch_axes > 1:
        y = reshape(y, batch_shape + (y.shape[1],))
    return y
