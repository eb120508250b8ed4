"""``contrastive``: the contrastive loss of pairs of embeddings."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.relu import relu
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.cast import cast
from catena.functions.array.expand_dims import expand_dims
from catena.functions.loss import _argcheck
from catena.functions.math.clip import clip
from catena.functions.math.sqrt import sqrt
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable

# the distance a gradient divides by is kept from zero (the gradient of the
# distance itself is undefined there)
_MIN_DISTANCE = 1e-7


class Contrastive(FunctionNode):
    """Contrastive loss of embeddings ``x0``, ``x1`` (N, K) and labels ``y`` (N,)."""

    def __init__(self, margin: float, reduce: str = 'mean') -> None:
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x0', 'x1', 'y'))
        x0_type, x1_type, y_type = in_types
        _argcheck.expect_same(('x0', 'x1'), (x0_type, x1_type))
        _argcheck.expect_ndim('x0', x0_type, 2)
        _argcheck.expect_labels('x0', x0_type, 'y', y_type, _argcheck.shape_of(x0_type)[:1],
                                '(x0.shape[0],)')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1, y = inputs
        xp = backend.get_array_module(x0)
        dtype = x0.dtype
        _argcheck.check_label_range('contrastive', y, 0, 2, x0.shape)
        self._y = y.astype(dtype)
        diff = x0 - x1
        diff *= diff
        dist_sq = diff.sum(axis=1)
        far = xp.sqrt(dist_sq)
        xp.subtract(dtype.type(self.margin), far, out=far)
        xp.maximum(far, dtype.type(0), out=far)
        far *= far
        # 0.5 * (y * d^2 + (1 - y) * max(margin - d, 0)^2)
        loss = dist_sq - far
        loss *= self._y
        loss += far
        loss *= dtype.type(0.5)
        if self.reduce == 'mean':
            return force_array(loss.sum() / dtype.type(max(x0.shape[0], 1)), dtype),
        return loss,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        y = self._y
        if self.reduce == 'mean':
            gy = broadcast_to(gy * (1.0 / max(x0.shape[0], 1)), y.shape)
        diff = x0 - x1
        half = diff.dtype.char == 'e'
        if half:  # the pull near zero distance, margin / _MIN_DISTANCE, overflows float16
            diff, gy, y = cast(diff, numpy.float32), cast(gy, numpy.float32), y.astype('f')
        dist = sqrt(_sum(diff * diff, axis=1))
        pull = relu(self.margin - dist) / clip(dist, _MIN_DISTANCE, None)
        coeff = gy * (y - (1.0 - y) * pull)
        gx = diff * broadcast_to(expand_dims(coeff, 1), diff.shape)
        if half:
            gx = cast(gx, numpy.float16)
        return tuple(gx if i == 0 else (-gx if i == 1 else None) for i in indexes)


def contrastive(x0: Any, x1: Any, y: Any, margin: float = 1, reduce: str = 'mean') -> Variable:
    """Contrastive loss of pairs: pulls similar pairs together, pushes others apart.

    With :math:`d_n = \\|x0_n - x1_n\\|_2`, the loss of a pair is
    :math:`\\frac{1}{2} (y_n d_n^2 + (1 - y_n) \\max(0, m - d_n)^2)`.

    Args:
        x0: Embeddings of floating point type, of shape ``(N, K)``.
        x1: Embeddings of ``x0``'s shape and dtype.
        y: Integer labels of shape ``(N,)``: 1 for a similar pair, 0 otherwise.
        margin: The margin :math:`m`, positive.
        reduce: ``'mean'`` for the mean over pairs, ``'no'`` for the loss of
            every pair.

    Returns:
        Variable: The loss: a scalar, or of shape ``(N,)``.

    Raises:
        ValueError: If ``margin`` is not positive, ``reduce`` is unknown or a
            label is not 0 or 1.

    .. admonition:: Example

        >>> x0 = np.array([[0.0, 0.0], [0.0, 0.0]], dtype=np.float32)
        >>> x1 = np.array([[0.3, 0.4], [0.3, 0.4]], dtype=np.float32)
        >>> F.contrastive(x0, x1, np.array([1, 0], np.int32), reduce='no').array
        array([0.125, 0.125], dtype=float32)
    """
    if not margin > 0:
        raise ValueError(f'contrastive: margin must be positive; got {margin!r}')
    _argcheck.check_reduce('contrastive', reduce, _argcheck.REDUCE_MEAN_NO)
    return Contrastive(margin, reduce).apply((x0, x1, y))[0]
