"""``sparse_matmul``: products of a sparse (COO) and a dense matrix."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import force_array, type_check
from catena.utils.sparse import CooMatrix
from catena.variable import Variable


def _entries(row: Any, col: Any, transpose: bool) -> tuple[Any, Any, Any]:
    """Row and column indices (swapped when ``transpose``), padding mapped to 0, and
    the mask of the real entries."""
    valid = (row >= 0) & (col >= 0)
    if transpose:
        row, col = col, row
    return row * valid, col * valid, valid


def _batch_index(xp: Any, row: Any) -> Any:
    return xp.arange(row.shape[0]).reshape(-1, 1) if row.ndim == 2 else None


def _coo_matmul(data: Any, row: Any, col: Any, shape: tuple[int, int], dense: Any,
                transa: bool, transb: bool, transc: bool, dtype: Any) -> Any:
    """``op(A) @ op(B)`` for the COO matrix ``A`` (``op`` transposes when asked)."""
    xp = backend.get_array_module(dense)
    rows, cols, valid = _entries(row, col, transa)
    m = shape[1] if transa else shape[0]
    b = dense.swapaxes(-1, -2) if transb else dense
    values = (data * valid)[..., None]
    batch = _batch_index(xp, row)
    if batch is None:
        c = xp.zeros((m, b.shape[-1]), dtype=dtype)
        xp.add.at(c, rows, values * b[cols])
    else:
        c = xp.zeros((len(b), m, b.shape[-1]), dtype=dtype)
        xp.add.at(c, (batch, rows), values * b[batch, cols])
    return c.swapaxes(-1, -2) if transc else c


def _coo_sampled_matmul(a: Any, b: Any, row: Any, col: Any, transa: bool, transb: bool,
                        transc: bool, dtype: Any) -> Any:
    """The entries of ``op(a) @ op(b)`` at the positions of the COO pattern (transposed
    when ``transc``), zero at padding."""
    xp = backend.get_array_module(a)
    rows, cols, valid = _entries(row, col, transc)
    a = a.swapaxes(-1, -2) if transa else a
    b_t = b if transb else b.swapaxes(-1, -2)  # op(b)^T: one row per output column
    batch = _batch_index(xp, row)
    if batch is None:
        picked = a[rows] * b_t[cols]
    else:
        picked = a[batch, rows] * b_t[batch, cols]
    return (picked.sum(axis=-1) * valid).astype(dtype, copy=False)


class _CooBase(FunctionNode):

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: tuple[int, int],
                 sp_order: str = 'other', transa: bool = False, transb: bool = False,
                 transc: bool = False, dtype: Any = None) -> None:
        if sp_row.shape != sp_col.shape or sp_row.ndim not in (1, 2):
            raise ValueError(f'sp_row and sp_col must be 1-D or 2-D (a batch) of one shape; '
                             f'got {sp_row.shape} and {sp_col.shape}')
        if len(sp_shape) != 2:
            raise ValueError(f'sp_shape must have two ints; got {sp_shape}')
        if sp_order not in ('C', 'F', 'other'):
            raise ValueError(f"sp_order must be 'C', 'F' or 'other'; got {sp_order!r}")
        self.sp_row = sp_row
        self.sp_col = sp_col
        self.sp_shape = (int(sp_shape[0]), int(sp_shape[1]))
        self.sp_order = sp_order
        self.transa = transa
        self.transb = transb
        self.transc = transc
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def _on_pattern(self, cls: type[_CooBase], transa: bool, transb: bool, transc: bool,
                    dtype: Any) -> _CooBase:
        """A node of ``cls`` on this node's sparse pattern."""
        return cls(self.sp_row, self.sp_col, self.sp_shape, self.sp_order, transa, transb,
                   transc, dtype)

    def _result_dtype(self, x: Any, y: Any) -> Any:
        return self.dtype or numpy.result_type(x.dtype, y.dtype)


class CooMatMul(_CooBase):
    """``op(A) @ op(B)`` (transposed when ``transc``) for a COO matrix ``A``.

    Inputs: the entries of ``A`` (``(ldnz,)`` or ``(batch, ldnz)``) and the
    dense ``B`` (2-D or 3-D); ``sp_row``, ``sp_col`` and ``sp_shape`` give the
    pattern and shape of ``A``, and ``sp_order`` how its entries are sorted
    (``'C'``, ``'F'`` or ``'other'``, as :func:`~catena.utils.get_order`
    says; a hint only). The result has the dtype NumPy promotes the inputs
    to, or ``dtype`` when given.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('sp', 'dn'))
        sp_type, dn_type = in_types
        inner = self.sp_shape[0] if self.transa else self.sp_shape[1]
        type_check.expect(
            sp_type.dtype.kind == 'f', dn_type.dtype.kind == 'f',
            dn_type.ndim >= 2, dn_type.ndim <= 3, sp_type.ndim == dn_type.ndim - 1,
            sp_type.shape[-1] == self.sp_row.shape[-1],
            dn_type.shape[-1 if self.transb else -2] == inner)
        if type_check.eval(dn_type.ndim) == 3:
            type_check.expect(sp_type.shape[0] == self.sp_row.shape[0],
                              dn_type.shape[0] == self.sp_row.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        sp, dn = inputs
        c = _coo_matmul(sp, self.sp_row, self.sp_col, self.sp_shape, dn, self.transa,
                        self.transb, self.transc, self._result_dtype(sp, dn))
        return force_array(c),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        sp, dn = self.get_retained_inputs()
        gc, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(self._on_pattern(CooMatMulGradSP, self.transc, not self.transb,
                                        self.transa, sp.dtype).apply((gc, dn))[0])
        if 1 in indexes:
            ret.append(self._on_pattern(CooMatMul, not self.transa, self.transc,
                                        self.transb, dn.dtype).apply((sp, gc))[0])
        return tuple(ret)


class CooMatMulGradSP(_CooBase):
    """The entries of ``op(a) @ op(b)`` on a COO pattern (transposed when ``transc``).

    This is the gradient of :class:`CooMatMul` with respect to the sparse entries.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('a', 'b'))
        a_type, b_type = in_types
        m, n = self.sp_shape[::-1] if self.transc else self.sp_shape
        type_check.expect(
            a_type.dtype.kind == 'f', b_type.dtype.kind == 'f',
            a_type.ndim >= 2, a_type.ndim <= 3, a_type.ndim == b_type.ndim,
            a_type.shape[-1 if self.transa else -2] == m,
            b_type.shape[-2 if self.transb else -1] == n,
            a_type.shape[-2 if self.transa else -1] == b_type.shape[-1 if self.transb else -2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        a, b = inputs
        data = _coo_sampled_matmul(a, b, self.sp_row, self.sp_col, self.transa, self.transb,
                                   self.transc, self._result_dtype(a, b))
        return force_array(data),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        a, b = self.get_retained_inputs()
        g, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(self._on_pattern(CooMatMul, self.transc, not self.transb,
                                        self.transa, a.dtype).apply((g, b))[0])
        if 1 in indexes:
            ret.append(self._on_pattern(CooMatMul, not self.transc, self.transa,
                                        not self.transb, b.dtype).apply((g, a))[0])
        return tuple(ret)


def sparse_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """The product of a sparse and a dense matrix (or batches of them).

    One operand is a :class:`~catena.utils.CooMatrix` (see
    :func:`~catena.utils.to_coo`), the other a dense Variable or array:
    ``C = op(A) @ op(B)``. A batch of sparse matrices goes with a 3-D dense
    operand of the same batch size. Gradients flow to the dense operand and
    to the sparse entries (``CooMatrix.data``) when they require them.

    Args:
        a: The left operand, a CooMatrix or a dense 2-D/3-D Variable or array.
        b: The right operand; exactly one of ``a`` and ``b`` is a CooMatrix.
        transa: Transpose (each matrix of) ``a``.
        transb: Transpose (each matrix of) ``b``.

    Returns:
        Variable: The dense product.

    .. admonition:: Example

        >>> a = catena.utils.to_coo(np.array([[0, 2], [1, 0]], np.float32))
        >>> b = np.array([[1, 2], [3, 4]], np.float32)
        >>> F.sparse_matmul(a, b).array
        array([[6., 8.],
               [1., 2.]], dtype=float32)
    """
    a_sparse = isinstance(a, CooMatrix)
    b_sparse = isinstance(b, CooMatrix)
    if a_sparse and not b_sparse and hasattr(b, 'shape'):
        return CooMatMul(a.row, a.col, a.shape, a.order, transa=transa, transb=transb,
                         transc=False).apply((a.data, b))[0]
    if b_sparse and not a_sparse and hasattr(a, 'shape'):
        # a @ B = (B^T a^T)^T
        return CooMatMul(b.row, b.col, b.shape, b.order, transa=not transb, transb=not transa,
                         transc=True).apply((b.data, a))[0]
    raise ValueError(f'sparse_matmul takes one CooMatrix and one dense Variable or array; '
                     f'got a: {type(a).__name__}, b: {type(b).__name__}')
