"""``tile``: repeat a whole array along each axis."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable


def _normalize_reps(reps: Any) -> tuple[int, ...]:
    if isinstance(reps, int):
        reps = (reps,)
    elif not (isinstance(reps, (tuple, list)) and all(isinstance(r, int) for r in reps)):
        raise TypeError(f'reps must be an int or a tuple of ints; got {reps!r}')
    if any(r < 0 for r in reps):
        raise ValueError(f'reps must not contain negative numbers; got {tuple(reps)}')
    return tuple(reps)


class Tile(FunctionNode):
    """Tiles an array ``reps`` times along each axis, as :func:`numpy.tile`."""

    def __init__(self, reps: Any) -> None:
        self.reps = _normalize_reps(reps)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return force_array(backend.get_array_module(x).tile(x, self.reps)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        ndim = gy.ndim
        reps = (1,) * (ndim - len(self.reps)) + self.reps
        shape = (1,) * (ndim - len(self._in_shape)) + self._in_shape
        # Each output axis of length r * n splits into (r, n); the r copies sum up.
        split: list[int] = []
        for r, n in zip(reps, shape):
            split += [r, n]
        gx = _sum(reshape(gy, tuple(split)), axis=tuple(range(0, 2 * ndim, 2)))
        return reshape(gx, self._in_shape),


def tile(x: Any, reps: Any) -> Variable:
    """Constructs an array by repeating ``x`` the number of times ``reps`` gives.

    As :func:`numpy.tile`: when ``reps`` is longer than ``x.ndim``, ``x`` gains
    leading axes of length one; when it is shorter, ``reps`` is padded with
    leading ones.

    Args:
        x: A Variable or array.
        reps: An int or a tuple of non-negative ints, the number of copies
            along each axis.

    Returns:
        Variable: The tiled variable.

    .. admonition:: Example

        >>> x = np.array([0, 1, 2], dtype=np.float32)
        >>> F.tile(x, 2).array
        array([0., 1., 2., 0., 1., 2.], dtype=float32)
        >>> F.tile(x, (2, 1)).shape
        (2, 3)
    """
    return Tile(reps).apply((x,))[0]
