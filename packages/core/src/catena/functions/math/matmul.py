"""``matmul`` and ``batch_matmul``: matrix products with optional transposes."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.functions.math.sum_to import sum_to
from catena.utils import type_check
from catena.variable import Variable


def _matmul(xp: Any, a: Any, b: Any, transa: bool, transb: bool, transc: bool) -> Any:
    """``op(a) @ op(b)`` (transposed when ``transc``) through views, without copies."""
    if transc:
        # (A B)^T = B^T A^T: the result comes out contiguous.
        a, b, transa, transb = b, a, not transb, not transa
    if transa and a.ndim > 1:
        a = a.swapaxes(-1, -2)
    if transb and b.ndim > 1:
        b = b.swapaxes(-1, -2)
    return xp.matmul(a, b)


class MatMul(FunctionNode):
    """Matrix product with NumPy's ``matmul`` semantics and optional transposes.

    Args:
        transa: Transpose the (last two axes of the) left operand.
        transb: Transpose the right operand.
        transc: Transpose the result.
        dtype: The dtype of the result (default: that of the product).
    """

    def __init__(self, transa: bool = False, transb: bool = False, transc: bool = False,
                 dtype: Any = None) -> None:
        self.transa = bool(transa)
        self.transb = bool(transb)
        self.transc = bool(transc)
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a_type, b_type = in_types
        type_check.expect(a_type.dtype.kind == 'f', b_type.dtype.kind == 'f',
                          a_type.ndim >= 1, b_type.ndim >= 1)
        a_ndim = type_check.eval(a_type.ndim)
        b_ndim = type_check.eval(b_type.ndim)
        a_inner = a_type.shape[-2] if self.transa and a_ndim > 1 else a_type.shape[-1]
        if b_ndim == 1:
            b_inner = b_type.shape[0]
        else:
            b_inner = b_type.shape[-1] if self.transb else b_type.shape[-2]
        type_check.expect(a_inner == b_inner)
        if a_ndim > 2 or b_ndim > 2:
            type_check.expect_broadcast_shapes(
                a_type.shape[:-2] if a_ndim > 1 else (),
                b_type.shape[:-2] if b_ndim > 1 else ())

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        xp = backend.get_array_module(a)
        y = _matmul(xp, a, b, self.transa, self.transb, self.transc)
        return xp.asarray(y, dtype=self.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        if self.transc:
            # The same product, written as op'(b) @ op'(a) without a transposed result.
            gb, ga = _grads(b, a, not self.transb, not self.transa, gy,
                            1 in indexes, 0 in indexes)
        else:
            ga, gb = _grads(a, b, self.transa, self.transb, gy, 0 in indexes, 1 in indexes)
        return ga, gb


def _grads(a: Variable, b: Variable, transa: bool, transb: bool, gy: Variable,
           need_a: bool, need_b: bool) -> tuple[Variable | None, Variable | None]:
    """Gradients of ``y = op(a) @ op(b)``, 1-D operands promoted as matmul does."""
    transa = transa and a.ndim > 1
    transb = transb and b.ndim > 1
    a2 = a if a.ndim > 1 else reshape(a, (1,) + a.shape)
    b2 = b if b.ndim > 1 else reshape(b, b.shape + (1,))
    gy2 = gy
    if a.ndim == 1 and b.ndim == 1:
        gy2 = reshape(gy, (1, 1))
    elif a.ndim == 1:
        gy2 = reshape(gy, gy.shape[:-1] + (1, gy.shape[-1]))
    elif b.ndim == 1:
        gy2 = reshape(gy, gy.shape + (1,))
    ga = gb = None
    if need_a:
        # d op(a) = gy @ op(b)^T, transposed back when a was.
        ga2 = MatMul(False, not transb, transa, a.dtype).apply((gy2, b2))[0]
        ga = reshape(sum_to(ga2, a2.shape), a.shape)
    if need_b:
        # d op(b) = op(a)^T @ gy, transposed back when b was.
        gb2 = MatMul(not transa, False, transb, b.dtype).apply((a2, gy2))[0]
        gb = reshape(sum_to(gb2, b2.shape), b.shape)
    return ga, gb


def matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix product of ``a`` and ``b``, as :func:`numpy.matmul`.

    Two 1-D operands give their inner product; a 1-D operand is otherwise
    taken as a row (left) or column (right) vector. Operands with more than
    two dimensions are stacks of matrices in their last two axes, and the
    stack axes broadcast.

    Args:
        a: The left operand, a Variable or array of floating point type.
        b: The right operand.
        transa: Transpose each matrix of ``a`` (no effect on a 1-D ``a``).
        transb: Transpose each matrix of ``b`` (no effect on a 1-D ``b``).

    Returns:
        Variable: The product.

    .. admonition:: Example

        >>> a = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> b = np.array([[1, 0], [1, 1]], dtype=np.float32)
        >>> F.matmul(a, b, transb=True).array
        array([[1., 3.],
               [3., 7.]], dtype=float32)
    """
    return MatMul(transa=transa, transb=transb).apply((a, b))[0]


def batch_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix products of two batches of matrices (deprecated: use :func:`matmul`).

    A 2-D operand of shape ``(B, N)`` is a batch of ``N x 1`` matrices; a
    3-D operand of shape ``(B, M, N)`` is a batch of ``M x N`` matrices.

    Args:
        a: The left operand, 2-D or 3-D.
        b: The right operand, 2-D or 3-D, with the same batch size.
        transa: Transpose each matrix of ``a``.
        transb: Transpose each matrix of ``b``.

    Returns:
        Variable: The products, as a 3-D array.
    """
    warnings.warn('batch_matmul is deprecated; use matmul instead',
                  DeprecationWarning, stacklevel=2)
    for name, x in (('a', a), ('b', b)):
        if not 2 <= _arguments.array('batch_matmul', name, x).ndim <= 3:
            raise ValueError(f'batch_matmul: {name} must be 2-D or 3-D; got shape {x.shape}')
    if a.shape[0] != b.shape[0]:
        raise ValueError(f'batch_matmul: a and b must have the same batch size; got shapes '
                         f'{a.shape} and {b.shape}')
    a = reshape(a, a.shape[:2] + (-1,))
    b = reshape(b, b.shape[:2] + (-1,))
    return MatMul(transa=transa, transb=transb).apply((a, b))[0]
