"""Random matrices with chosen singular values (``testing.generate_matrix``)."""
# Tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002

from __future__ import annotations

from typing import Any

import numpy


def _broadcast_to(array: Any, shape: tuple[int, ...]) -> numpy.ndarray:
    """:func:`numpy.broadcast_to` (kept under this name for Chainer's tests)."""
    return numpy.broadcast_to(array, shape)


def _random_unitary(batch: tuple[int, ...], size: int, complex_: bool) -> numpy.ndarray:
    matrix = numpy.random.normal(size=batch + (size, size))
    if complex_:
        matrix = matrix + 1j * numpy.random.normal(size=batch + (size, size))
    unitary, _ = numpy.linalg.qr(matrix)
    return unitary


def generate_matrix(shape: tuple[int, ...], dtype: Any = float, *,
                    singular_values: Any = None) -> numpy.ndarray:
    """Returns a random matrix (or stack of matrices) with the given singular values.

    The result is ``U @ diag(singular_values) @ V`` for random unitary ``U``
    and ``V`` drawn from NumPy's global generator, so it is reproducible
    under :func:`~catena.testing.fix_random`. Use it to test linear algebra
    on well-conditioned (or deliberately ill-conditioned) inputs.

    Args:
        shape: The shape, at least two-dimensional; the last two axes are
            the matrix axes.
        dtype: A floating or complex dtype.
        singular_values: Non-negative real values, broadcastable to
            ``shape[:-2] + (min(shape[-2:]),)``. Required.

    Returns:
        numpy.ndarray: The matrix, of ``shape`` and ``dtype``.

    Raises:
        TypeError: When ``singular_values`` is missing or not real, or
            ``dtype`` is neither floating nor complex.
        ValueError: When ``shape`` has fewer than two axes, or
            ``singular_values`` is negative or does not broadcast.

    .. admonition:: Example

        >>> x = testing.generate_matrix((3, 3), numpy.float32, singular_values=[3, 2, 1])
        >>> float(numpy.linalg.cond(x))
        3.000
    """
    if singular_values is None:
        raise TypeError('generate_matrix needs singular_values')
    shape = tuple(int(n) for n in shape)
    if len(shape) < 2:
        raise ValueError(f'generate_matrix makes matrices; the shape {shape} has fewer than '
                         'two axes')
    dtype = numpy.dtype(dtype)
    if dtype.kind not in 'fc':
        raise TypeError(f'generate_matrix makes floating or complex matrices; got the dtype '
                        f'{dtype}')
    values = numpy.asarray(singular_values)
    if values.dtype.kind not in 'biuf':
        raise TypeError(f'singular_values must be real; got the dtype {values.dtype}')
    if numpy.any(values < 0):
        raise ValueError('singular_values must not be negative')
    batch, (rows, columns) = shape[:-2], shape[-2:]
    rank = min(rows, columns)
    try:
        values = _broadcast_to(values, batch + (rank,))
    except ValueError:
        raise ValueError(f'singular_values of shape {values.shape} do not broadcast to '
                         f'{batch + (rank,)}, the singular values of matrices of shape '
                         f'{shape}') from None
    if 0 in shape:
        return numpy.zeros(shape, dtype)
    complex_ = dtype.kind == 'c'
    left = _random_unitary(batch, rows, complex_)[..., :, :rank]
    right = _random_unitary(batch, columns, complex_)[..., :rank, :]
    matrix = (left * values[..., None, :].astype(numpy.float64)) @ right
    return matrix.astype(dtype)


__all__ = ['generate_matrix']
