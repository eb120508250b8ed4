"""``shift``: move groups of channels by fixed offsets (a zero-FLOP spatial convolution)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _odd_pair(value: Any) -> tuple[int, int]:
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 and v % 2 == 1 for v in pair):
        raise ValueError(f'ksize must be an odd positive int or a pair of them; got {value!r}')
    return pair[0], pair[1]


def _nonzero_pair(value: Any) -> tuple[int, int]:
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, int) and v != 0 for v in pair):
        raise ValueError(f'dilate must be a nonzero int or a pair of them; got {value!r}')
    return pair[0], pair[1]


class ShiftFunction(FunctionNode):
    """Shifts each of ``kh * kw`` channel groups by its own offset of the kernel grid."""

    def __init__(self, ksize: Any = 3, dilate: Any = 1) -> None:
        self.kh, self.kw = _odd_pair(ksize)
        self.dy, self.dx = _nonzero_pair(dilate)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 4,
            x_type.shape[1] >= self.kh * self.kw,
        )

    def offsets(self, channels: int) -> list[tuple[int, int, int, int]]:
        """Returns ``(first channel, end channel, row offset, column offset)`` per group.

        The offsets say where output pixels move: ``y[r, q] = x[r - oy, q - ox]``.
        Group ``g`` reads from the ``g``-th position of the ``kh x kw`` grid
        (row major, centred, times the dilation), except that the centre group
        and the last group swap positions, so that the last group (which also
        takes the ``channels % (kh * kw)`` remaining channels) stays in place.
        """
        n_groups = self.kh * self.kw
        size = channels // n_groups
        center = (n_groups - 1) // 2
        result = []
        for group in range(n_groups):
            position = {center: n_groups - 1, n_groups - 1: center}.get(group, group)
            ky = position // self.kw - self.kh // 2
            kx = position % self.kw - self.kw // 2
            end = (group + 1) * size if group < n_groups - 1 else channels
            result.append((group * size, end, ky * self.dy, kx * self.dx))
        return result

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        _, c, h, w = x.shape
        y = backend.get_array_module(x).zeros_like(x)
        for start, end, oy, ox in self.offsets(c):
            # y[:, :, r, q] = x[:, :, r - oy, q - ox] where that pixel exists.
            rows = slice(max(oy, 0), min(h + oy, h))
            cols = slice(max(ox, 0), min(w + ox, w))
            src_rows = slice(rows.start - oy, rows.stop - oy)
            src_cols = slice(cols.start - ox, cols.stop - ox)
            if rows.start < rows.stop and cols.start < cols.stop:
                y[:, start:end, rows, cols] = x[:, start:end, src_rows, src_cols]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return shift(grad_outputs[0], ksize=(self.kh, self.kw), dilate=(-self.dy, -self.dx)),


def shift(x: Any, ksize: Any = 3, dilate: Any = 1) -> Variable:
    """Shift function: moves groups of channels by the offsets of a kernel grid.

    The channels are split into ``kh * kw`` groups of ``c // (kh * kw)``
    (the last group also takes the remainder). Each group moves by one
    position ``(a, b) = (i - kh // 2, j - kw // 2)`` of the kernel grid
    times ``dilate``: ``y[:, c, r, q] = x[:, c, r - a d_y, q - b d_x]``,
    zero where that falls outside the image. A following 1x1 convolution
    thus sees every neighbour (`Shift: A Zero FLOP, Zero Parameter Alternative to
    Spatial Convolutions <https://arxiv.org/abs/1711.08141>`_). Groups take
    the grid positions in row-major order, except that the middle group and
    the last one swap: the last group is not shifted.

    Args:
        x: Input of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize: The grid size, an odd int or a pair of odd ints.
        dilate: The spacing of the grid, a nonzero int or a pair (negative
            values shift the other way).

    Returns:
        Variable: Output of the same shape as ``x``.

    Raises:
        ValueError: If ``ksize`` is not odd or ``dilate`` is zero.
        InvalidType: If ``x`` is not 4-dimensional or has fewer than
            ``kh * kw`` channels.

    .. admonition:: Example

        >>> x = np.ones((1, 9, 3, 3), dtype=np.float32)
        >>> F.shift(x).array[0, 0]
        array([[1., 1., 0.],
               [1., 1., 0.],
               [0., 0., 0.]], dtype=float32)
    """
    return ShiftFunction(ksize, dilate).apply((x,))[0]
