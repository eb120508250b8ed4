"""``triplet``: the triplet loss of anchors, positives and negatives."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.expand_dims import expand_dims
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable


class Triplet(FunctionNode):
    """``max(0, |a - p|^2 - |a - n|^2 + margin)`` per row of the (N, K) inputs."""

    def __init__(self, margin: float, reduce: str = 'mean') -> None:
        self.margin = margin
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        names = ('anchor', 'positive', 'negative')
        type_check._argname(in_types, names)
        _argcheck.expect_same(names, in_types)
        _argcheck.expect_ndim('anchor', in_types[0], 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        anchor, positive, negative = inputs
        xp = backend.get_array_module(anchor)
        dtype = anchor.dtype
        # |a - p|^2 - |a - n|^2 = sum((n - p) * (2a - p - n))
        twice = anchor + anchor
        twice -= positive
        twice -= negative
        twice *= negative - positive
        dist = twice.sum(axis=1)
        dist += dtype.type(self.margin)
        self._active = (dist > 0).astype(dtype)
        xp.maximum(dist, dtype.type(0), out=dist)
        if self.reduce == 'mean':
            return force_array(dist.sum() / dtype.type(max(anchor.shape[0], 1)), dtype),
        return dist,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        anchor, positive, negative = self.get_retained_inputs()
        gy, = grad_outputs
        scale = 2.0 / max(anchor.shape[0], 1) if self.reduce == 'mean' else 2.0
        g = gy * scale * self._active
        g = broadcast_to(expand_dims(g, 1), anchor.shape)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(g * (negative - positive))
            elif i == 1:
                ret.append(g * (positive - anchor))
            else:
                ret.append(g * (anchor - negative))
        return tuple(ret)


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2,
            reduce: str = 'mean') -> Variable:
    """Triplet loss: the anchor should be nearer the positive than the negative by a margin.

    The loss of a row is
    :math:`\\max(0, \\|a_n - p_n\\|^2 - \\|a_n - n_n\\|^2 + m)`.

    Args:
        anchor: Anchors of floating point type, of shape ``(N, K)``.
        positive: Positive examples of the anchors' shape and dtype.
        negative: Negative examples of the anchors' shape and dtype.
        margin: The margin :math:`m`, positive.
        reduce: ``'mean'`` for the mean over rows, ``'no'`` for the loss of
            every row.

    Returns:
        Variable: The loss: a scalar, or of shape ``(N,)``.

    Raises:
        ValueError: If ``margin`` is not positive or ``reduce`` is unknown.

    .. admonition:: Example

        >>> a = np.array([[0.0, 0.0], [0.0, 0.0]], dtype=np.float32)
        >>> p = np.array([[0.5, 0.0], [1.0, 0.0]], dtype=np.float32)
        >>> n = np.array([[1.0, 0.0], [0.0, 0.5]], dtype=np.float32)
        >>> F.triplet(a, p, n, reduce='no').array
        array([0.  , 0.95], dtype=float32)
    """
    if not margin > 0:
        raise ValueError(f'triplet: margin must be positive; got {margin!r}')
    _argcheck.check_reduce('triplet', reduce, _argcheck.REDUCE_MEAN_NO)
    return Triplet(margin, reduce).apply((anchor, positive, negative))[0]
