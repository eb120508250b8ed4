"""The Bilinear link."""

from __future__ import annotations

import math
from typing import Any

from catena import initializers, link, variable
from catena.functions.connection.bilinear import bilinear
from catena.links.connection import _util
from catena.utils import _validate


class Bilinear(link.Link):
    """Bilinear layer: applies :func:`~catena.functions.bilinear` to two inputs
    with a weight tensor ``W`` and, unless ``nobias``, the linear weights
    ``V1``, ``V2`` and the bias ``b``.

    Args:
        left_size: The size of the left input ``e1`` (``J``).
        right_size: The size of the right input ``e2`` (``K``).
        out_size: The output size (``L``).
        nobias: If True, the link has only ``W`` (no linear terms, no bias).
        initialW: The initializer of ``W`` (shape ``(J, K, L)``); None means
            :class:`~catena.initializers.Normal` with scale
            ``1 / sqrt(J K L)``. An array must have that shape.
        initial_bias: A tuple ``(V1, V2, b)`` of initializers of the shapes
            ``(J, L)``, ``(K, L)`` and ``(L,)``; None means zeros.

    Attributes:
        W (~catena.Parameter): The bilinear weight.
        V1 (~catena.Parameter): The left linear weight (not with ``nobias``).
        V2 (~catena.Parameter): The right linear weight (not with ``nobias``).
        b (~catena.Parameter): The bias (not with ``nobias``).
    """

    def __init__(self, left_size: int, right_size: int, out_size: int, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        left_size = _util.size_argument('Bilinear', 'left_size', left_size)
        right_size = _util.size_argument('Bilinear', 'right_size', right_size)
        out_size = _util.size_argument('Bilinear', 'out_size', out_size)
        self.in_sizes = (left_size, right_size)
        self.out_size = out_size
        self.nobias = nobias
        shape = (left_size, right_size, out_size)
        if initialW is None:
            initialW = initializers.Normal(1.0 / math.sqrt(left_size * right_size * out_size))
        else:
            _util.check_initial_shape('Bilinear', 'initialW', initialW, shape)
        with self.init_scope():
            self.W = variable.Parameter(_util.get_initializer(initialW, who='Bilinear'), shape)
            if not nobias:
                if initial_bias is None:
                    initial_bias = (0, 0, 0)
                elif not isinstance(initial_bias, (tuple, list)) or len(initial_bias) != 3:
                    raise ValueError('Bilinear: initial_bias must be a tuple (V1, V2, b) or None; '
                                     f'got {_validate.show(initial_bias)}')
                for name, value, part in zip(('V1', 'V2', 'b'), initial_bias,
                                             ((left_size, out_size), (right_size, out_size),
                                              (out_size,))):
                    _util.check_initial_shape('Bilinear', f'initial_bias {name}', value, part)
                V1, V2, b = (_util.get_bias_initializer(i, 'Bilinear', f'initial_bias {name}')
                             for i, name in zip(initial_bias, ('V1', 'V2', 'b')))
                self.V1 = variable.Parameter(V1, (left_size, out_size))
                self.V2 = variable.Parameter(V2, (right_size, out_size))
                self.b = variable.Parameter(b, out_size)

    def forward(self, e1: Any, e2: Any) -> variable.Variable:
        """Returns the bilinear map of ``e1`` ``(n, J)`` and ``e2`` ``(n, K)``, ``(n, L)``."""
        if self.nobias:
            return bilinear(e1, e2, self.W)
        return bilinear(e1, e2, self.W, self.V1, self.V2, self.b)
