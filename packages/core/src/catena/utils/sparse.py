"""Sparse matrices in COO format, for :func:`catena.functions.sparse_matmul`."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.variable import Variable

_ORDERS = ('C', 'F', 'other', None)


class CooMatrix:
    """A sparse matrix, or a batch of them, in coordinate (COO) format.

    Entry ``i`` puts ``data[i]`` at ``(row[i], col[i])``; entries whose row
    or column is negative are padding and ignored. A batch has 2-D ``data``,
    ``row`` and ``col`` of shape ``(batch, ldnz)``, one row per matrix.

    Args:
        data: The values of the entries (1-D, or 2-D for a batch); a
            Variable is kept as it is, so that gradients reach its graph.
        row: Their row indices, an integer array of the shape of ``data``.
        col: Their column indices, likewise.
        shape: The dense shape ``(rows, columns)`` of one matrix.
        order: ``'C'`` if the entries are sorted by row (then column),
            ``'F'`` if sorted by column (then row), ``'other'`` if neither;
            None works it out. It is a hint for faster kernels.
        requires_grad: Whether ``data``, when it is an array, takes a gradient
            in backprop.

    Attributes:
        data (~catena.Variable): The values of the entries.
        row: The row indices.
        col: The column indices.
        shape (tuple): The dense shape of one matrix.
        order (str): ``'C'``, ``'F'`` or ``'other'``.
    """

    def __init__(self, data: Any, row: Any, col: Any, shape: tuple[int, int],
                 order: str | None = None, requires_grad: bool = False) -> None:
        if not 1 <= data.ndim <= 2:
            raise ValueError(f'data must be 1-D or 2-D (a batch); got {data.ndim}-D')
        if not data.shape == row.shape == col.shape:
            raise ValueError(f'data, row and col must have one shape; got {data.shape}, '
                             f'{row.shape} and {col.shape}')
        if len(shape) != 2 or not (shape[0] > 0 and shape[1] > 0):
            raise ValueError(f'shape must be two positive ints; got {shape}')
        if order not in _ORDERS:
            raise ValueError(f"order must be 'C', 'F', 'other' or None; got {order!r}")
        self.data = data if isinstance(data, Variable) else \
            Variable(data, requires_grad=requires_grad)
        self.row = row
        self.col = col
        self.shape = (int(shape[0]), int(shape[1]))
        self.order = get_order(row, col) if order is None else order

    def to_dense(self) -> Any:
        """Returns the dense array (entries at one position add up)."""
        data = self.data.array
        xp = backend.get_array_module(data)
        valid = (self.row >= 0) & (self.col >= 0)
        if data.ndim == 1:
            dense = xp.zeros(self.shape, dtype=data.dtype)
            xp.add.at(dense, (self.row[valid], self.col[valid]), data[valid])
            return dense
        batch = xp.broadcast_to(xp.arange(len(data))[:, None], data.shape)
        dense = xp.zeros((len(data),) + self.shape, dtype=data.dtype)
        xp.add.at(dense, (batch[valid], self.row[valid], self.col[valid]), data[valid])
        return dense


def _coo_of_matrix(xp: Any, x: Any, ldnz: int) -> tuple[Any, Any, Any]:
    row, col = xp.nonzero(x)
    nnz = len(row)
    data = xp.zeros(ldnz, dtype=x.dtype)
    rows = xp.full(ldnz, -1, dtype=numpy.int32)
    cols = xp.full(ldnz, -1, dtype=numpy.int32)
    data[:nnz] = x[row, col]
    rows[:nnz] = row
    cols[:nnz] = col
    return data, rows, cols


def to_coo(x: Any, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """Converts a dense matrix, or a batch of them, to a :class:`CooMatrix`.

    The non-zero elements become the entries, in row-major order; the
    arrays are padded (row and column -1, value 0) to a common length.

    Args:
        x: A 2-D array, or a 3-D array (a batch of matrices).
        ldnz: The length of the entry arrays: at least the largest number
            of non-zero elements of a matrix, which is used when it is
            None or smaller.
        requires_grad: Whether the entries take a gradient in backprop.

    Returns:
        CooMatrix: The sparse matrix (or batch).

    .. admonition:: Example

        >>> x = catena.utils.to_coo(np.array([[0, 2, 0], [-1, 0, 0]], np.float32))
        >>> x.data.array, x.row, x.col, x.shape
        (array([ 2., -1.], dtype=float32), array([0, 1], dtype=int32), \
array([1, 0], dtype=int32), (2, 3))
    """
    xp = backend.get_array_module(x)
    if x.ndim == 2:
        nnz = int(xp.count_nonzero(x))
        data, row, col = _coo_of_matrix(xp, x, max(nnz, ldnz or 0))
        return CooMatrix(data, row, col, x.shape, order='C', requires_grad=requires_grad)
    if x.ndim == 3:
        counts = xp.count_nonzero(x.reshape(len(x), -1), axis=1)
        width = max(int(counts.max()) if len(x) else 0, ldnz or 0)
        parts = [_coo_of_matrix(xp, matrix, width) for matrix in x]
        data, row, col = (xp.stack([p[i] for p in parts]) if parts else
                          xp.zeros((0, width), dtype=d) for i, d in
                          enumerate((x.dtype, numpy.int32, numpy.int32)))
        return CooMatrix(data, row, col, x.shape[1:], order='C', requires_grad=requires_grad)
    raise ValueError(f'x must be 2-D or 3-D (a batch); got {x.ndim}-D')


def _sorted_by(major: Any, minor: Any) -> bool:
    """Tells whether the valid entries are sorted by ``major``, then ``minor``."""
    if major.ndim == 2:
        return all(_sorted_by(a, b) for a, b in zip(major, minor))
    valid = (major >= 0) & (minor >= 0)
    if bool(((major >= 0) != (minor >= 0)).any()):
        raise ValueError('row and col must be negative (padding) at the same entries')
    major = major[valid]
    minor = minor[valid]
    if major.size <= 1:
        return True
    step_major = major[1:] - major[:-1]
    step_minor = minor[1:] - minor[:-1]
    return bool((step_major >= 0).all() and ((step_major > 0) | (step_minor >= 0)).all())


def get_order(row: Any, col: Any) -> str:
    """Says how the entries of a COO matrix are sorted.

    Args:
        row: The row indices.
        col: The column indices.

    Returns:
        str: ``'C'`` if sorted by row (then column), ``'F'`` if sorted by
        column (then row), ``'other'`` otherwise.
    """
    if row.shape != col.shape:
        raise ValueError(f'row and col must have one shape; got {row.shape} and {col.shape}')
    if _sorted_by(row, col):
        return 'C'
    if _sorted_by(col, row):
        return 'F'
    return 'other'


__all__ = ['CooMatrix', 'get_order', 'to_coo']
