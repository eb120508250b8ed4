"""The Orthogonal initializer."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.initializers._base import Initializer, _random_state

_MODES = ('auto', 'projection', 'basis', 'embedding')


class Orthogonal(Initializer):
    """Fills the array with a scaled (semi-)orthogonal matrix (Saxe et al., 2013).

    The array is viewed as a matrix of ``shape[0]`` rows and
    ``prod(shape[1:])`` columns. A standard Gaussian matrix of that shape is
    decomposed by QR (with the signs fixed so that ``R`` has a non-negative
    diagonal, which makes the result uniformly distributed), and the
    orthonormal factor times ``scale`` fills the array.

    Args:
        scale: The factor on the orthonormal vectors.
        dtype: The dtype the initializer produces.
        mode: A check of the array's shape (as in Chainer, it never changes
            the values); ``rows`` vectors of ``columns`` dimensions make:

            * ``'projection'``: orthonormal rows (``rows <= columns``);
              ``W @ W.T == scale**2 * I``.
            * ``'embedding'``: orthonormal columns (``rows >= columns``);
              ``W.T @ W == scale**2 * I``.
            * ``'basis'``: a square matrix (``rows == columns``), both.
            * ``'auto'`` (default): any shape, as ``'projection'`` when
              ``rows <= columns``, else as ``'embedding'``.
        rng: A random generator with a ``normal`` method, or None for the
            array module's ``random``.
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None, mode: str = 'auto',
                 rng: Any = None) -> None:
        if mode not in _MODES:
            raise ValueError(f'Orthogonal: mode must be one of {_MODES}; got {mode!r}')
        super().__init__(dtype)
        self.scale = scale
        self.mode = mode
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        rng = _random_state(self.rng, array)
        if array.ndim == 0:
            array[...] = self.scale if rng.uniform() < 0.5 else -self.scale
            return
        if array.size == 0:
            raise ValueError(f'Orthogonal: shape {array.shape} is empty')
        rows = array.shape[0]
        cols = array.size // rows
        mode = self.mode
        if mode in ('projection', 'basis') and rows > cols:
            raise ValueError(f'Orthogonal(mode={mode!r}): shape {array.shape} has more '
                             f'vectors ({rows}) than dimensions ({cols})')
        if mode in ('embedding', 'basis') and rows < cols:
            raise ValueError(f'Orthogonal(mode={mode!r}): shape {array.shape} has fewer '
                             f'rows ({rows}) than columns ({cols})')
        gaussian = rng.normal(size=(rows, cols))
        xp = backend.get_array_module(gaussian)
        transpose = rows <= cols
        q, r = xp.linalg.qr(gaussian.T if transpose else gaussian)
        q *= xp.copysign(self.scale, xp.diagonal(r))
        array[...] = (q.T if transpose else q).reshape(array.shape)
