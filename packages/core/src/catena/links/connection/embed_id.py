"""The EmbedID link: a table of learned ID embeddings."""

from __future__ import annotations

from typing import Any

from catena import initializers, link, variable
from catena.functions.connection.embed_id import embed_id
from catena.links.connection import _util
from catena.utils import _validate


class EmbedID(link.Link):
    """Word embedding layer: holds a matrix ``W`` whose row ``i`` is the vector of
    ID ``i`` and applies :func:`~catena.functions.embed_id`.

    Args:
        in_size: The number of IDs (rows of ``W``).
        out_size: The size of each vector (columns of ``W``).
        initialW: The initializer of ``W`` (shape ``(in_size, out_size)``);
            None means :class:`~catena.initializers.Normal` with scale 1.
        ignore_label: An ID that maps to the zero vector, or None.

    Attributes:
        W (~catena.Parameter): The embedding matrix.
        ignore_label: The ID that maps to zeros, or None.
    """

    # A class default, so that instances pickled before the attribute
    # existed still work.
    ignore_label: int | None = None

    def __init__(self, in_size: int, out_size: int, initialW: Any = None,
                 ignore_label: int | None = None) -> None:
        super().__init__()
        in_size = _util.size_argument('EmbedID', 'in_size', in_size)
        out_size = _util.size_argument('EmbedID', 'out_size', out_size)
        self.ignore_label = _validate.integer('EmbedID', 'ignore_label', ignore_label, None,
                                              optional=True)
        initializer = initializers.Normal(1.0) if initialW is None else \
            _util.get_initializer(initialW, who='EmbedID')
        with self.init_scope():
            self.W = _util.parameter('EmbedID', 'initialW', initializer, (in_size, out_size))

    @classmethod
    def from_params(cls, W: Any, ignore_label: int | None = None) -> EmbedID:
        """Returns an EmbedID whose ``W`` starts as a copy of ``W`` (``(in_size, out_size)``)."""
        if len(W.shape) != 2:
            raise ValueError(f'W must be a matrix (in_size, out_size); got W.shape={W.shape}')
        in_size, out_size = W.shape
        return cls(in_size, out_size, initialW=variable.as_array(W), ignore_label=ignore_label)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the vectors of the integer IDs ``x``, of shape ``x.shape + (out_size,)``."""
        return embed_id(x, self.W, ignore_label=self.ignore_label)
