"""``embed_id``: look up the rows of an embedding matrix by integer IDs."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.configuration import config
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class EmbedIDFunction(FunctionNode):
    """``y = W[x]`` for integer IDs ``x``; rows of ``ignore_label`` are zero."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W'))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'i',
            w_type.dtype.kind == 'f',
            w_type.ndim == 2,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, W = inputs
        self._w_shape = W.shape
        xp = backend.get_array_module(W)
        if config.debug:
            _check_ids(x, W.shape[0], self.ignore_label)
        if self.ignore_label is None:
            return W[x],
        ignored = x == self.ignore_label
        y = W[xp.where(ignored, 0, x)]
        y[ignored] = 0
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(None if i == 0 else
                     EmbedIDGrad(self._w_shape, self.ignore_label).apply((x, gy))[0]
                     for i in indexes)


class EmbedIDGrad(FunctionNode):
    """The gradient of :class:`EmbedIDFunction` for ``W``: inputs ``(x, gy)``, output ``gW``.

    Row ``k`` of ``gW`` is the sum of the rows of ``gy`` whose ID is ``k``.
    """

    def __init__(self, w_shape: tuple[int, ...], ignore_label: int | None = None) -> None:
        self.w_shape = tuple(w_shape)
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, gy = inputs
        xp = backend.get_array_module(gy)
        gW = xp.zeros(self.w_shape, dtype=gy.dtype)
        if self.ignore_label is not None:
            kept = x != self.ignore_label
            x, gy = x[kept], gy[kept]
        xp.add.at(gW, x, gy)
        return gW,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        ggW, = grad_outputs
        return tuple(None if i == 0 else
                     EmbedIDFunction(self.ignore_label).apply((x, ggW))[0]
                     for i in indexes)


def _check_ids(x: Any, n_ids: int, ignore_label: int | None) -> None:
    kept = x if ignore_label is None else x[x != ignore_label]
    if kept.size and (int(kept.min()) < 0 or int(kept.max()) >= n_ids):
        raise ValueError(
            f'embed_id: the IDs must lie in [0, {n_ids}) (W has {n_ids} rows) or equal '
            f'ignore_label={ignore_label}; got IDs from {int(kept.min())} to {int(kept.max())}')


def embed_id(x: Any, W: Any, ignore_label: int | None = None) -> Variable:
    """Efficient linear function for one-hot input: looks up rows of ``W``.

    ``y[..., :] = W[x[...], :]``, the same as multiplying one-hot vectors of
    the IDs with ``W``, without building them. Positions whose ID equals
    ``ignore_label`` get a zero vector and pass no gradient.

    The IDs must lie in ``[0, W.shape[0])`` (or equal ``ignore_label``);
    as in Chainer this is verified only in debug mode
    (``catena.config.debug``), so check untrusted IDs yourself.

    Args:
        x: Integer IDs of any shape.
        W: The embedding matrix of shape ``(n_ids, n_units)``.
        ignore_label: An ID that maps to zeros, or None.

    Returns:
        Variable: Vectors of shape ``x.shape + (n_units,)``.

    Raises:
        InvalidType: If ``x`` is not of an integer type or ``W`` is not a
            floating point matrix.
        ValueError: In debug mode, if an ID is out of range.

    .. admonition:: Example

        >>> W = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], dtype=np.float32)
        >>> F.embed_id(np.array([2, 1, -1], dtype=np.int32), W, ignore_label=-1).array
        array([[2., 2., 2.],
               [1., 1., 1.],
               [0., 0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]
