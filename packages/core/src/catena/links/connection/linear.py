"""The Linear link: a fully-connected layer."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from catena import link, variable
from catena.functions.connection.linear import linear
from catena.links.connection import _util


class Linear(link.Link):
    """Fully-connected layer: holds a weight ``W`` and a bias ``b`` and applies
    :func:`~catena.functions.linear`.

    With ``in_size=None`` (or a single size argument, ``Linear(out_size)``)
    the weight gets its shape at the first call, from the size of the input's
    feature axes.

    Args:
        in_size: The input size, or None to infer it at the first call.
            ``Linear(n)`` means ``Linear(None, n)``.
        out_size: The output size.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape ``(out_size, in_size)``);
            None means :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b`` (shape ``(out_size,)``); None
            means zero.

    Attributes:
        W (~catena.Parameter): The weight.
        b (~catena.Parameter): The bias, or None with ``nobias``.
        in_size: The input size (None until known).
        out_size: The output size.
    """

    def __init__(self, in_size: int | None, out_size: int | None = None, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        if out_size is None:
            raise ValueError('Linear needs an out_size; got None')
        out_size = _util.size_argument('Linear', 'out_size', out_size)
        if in_size is not None:
            in_size = _util.size_argument('Linear', 'in_size', in_size)
        self.in_size = in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = variable.Parameter(_util.get_initializer(initialW, who='Linear'))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                self.b = _util.parameter('Linear', 'initial_bias',
                                         _util.get_bias_initializer(initial_bias, 'Linear'),
                                         out_size)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, nobias: bool = False) -> Linear:
        """Returns a Linear whose parameters start as copies of ``W`` and ``b``.

        Args:
            W: A weight array of shape ``(out_size, in_size)``.
            b: A bias array of shape ``(out_size,)``, or None (zero).
            nobias: If True, the link has no bias (``b`` must be None).
        """
        out_size, in_size = W.shape
        if b is not None:
            if nobias:
                raise ValueError('from_params got a bias b together with nobias=True')
            if b.shape != (out_size,):
                raise ValueError(f'b must have shape ({out_size},) to match W.shape={W.shape}; '
                                 f'got b.shape={b.shape}')
        return cls(in_size, out_size, nobias, initialW=variable.as_array(W),
                   initial_bias=None if b is None else variable.as_array(b))

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield 'in_size', self.in_size
        yield 'out_size', self.out_size
        yield 'nobias', self.b is None

    def _initialize_params(self, in_size: int) -> None:
        _util.initialize('Linear', 'initialW', self.W, (self.out_size, in_size))
        self.in_size = in_size

    def forward(self, x: Any, n_batch_axes: int = 1) -> variable.Variable:
        """Applies the layer.

        Args:
            x: Input of shape ``(s_1, ..., s_n, in_size...)``; the axes after
                the ``n_batch_axes`` batch axes are flattened.
            n_batch_axes: The number of batch axes.

        Returns:
            Variable: Output of shape ``x.shape[:n_batch_axes] + (out_size,)``.
        """
        if self.W.array is None:
            shape = _util.input_shape('Linear', x)
            in_size = math.prod(shape[n_batch_axes:])
            if len(shape) <= n_batch_axes or in_size == 0:
                raise ValueError(f'Linear cannot infer its in_size from x.shape={shape} with '
                                 f'n_batch_axes={n_batch_axes}: the input needs at least one '
                                 'non-empty feature axis after the batch axes')
            self._initialize_params(in_size)
        return linear(x, self.W, self.b, n_batch_axes=n_batch_axes)
