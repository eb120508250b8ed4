"""The :class:`Maxout` link."""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.activation.maxout import maxout
from catena.link import Chain
from catena.links.connection import _util
from catena.links.connection.linear import Linear
from catena.utils import _validate
from catena.variable import Variable


def _reshaped(initializer: Any, shape: tuple[int, ...], flat: tuple[int, ...],
              name: str) -> Any:
    """Maps an initializer given in Maxout's shape onto the Linear's flat shape."""
    if initializer is None or numpy.isscalar(initializer):
        return initializer
    if hasattr(initializer, 'shape'):
        if tuple(initializer.shape) != shape:
            raise ValueError(f'Maxout: {name}.shape must be {shape}; got {initializer.shape}')
        return initializer.reshape(flat)
    if not callable(initializer):
        raise TypeError(f'Maxout: {name} must be a scalar, an array or a callable; got '
                        f'{type(initializer).__name__}')
    original = initializer

    def fill(array: Any) -> None:
        # A reshape of the fresh contiguous array is a view that writes through.
        original(array.reshape(shape))

    fill.dtype = getattr(original, 'dtype', None)  # type: ignore[attr-defined]
    return fill


class Maxout(Chain):
    """Fully-connected maxout layer.

    A linear layer with ``out_size * pool_size`` units followed by
    :func:`~catena.functions.maxout`: output unit ``k`` is the maximum of the
    ``pool_size`` linear units ``k * pool_size`` to ``(k + 1) * pool_size - 1``.

    Args:
        in_size: The input size, or None to infer it at the first call.
        out_size: The output size.
        pool_size: The number of linear units per output unit.
        initialW: The weight initializer; an array must have the shape
            ``(out_size, pool_size, in_size)``.
        initial_bias: The bias initializer; an array must have the shape
            ``(out_size, pool_size)``. None: no bias.

    Attributes:
        linear: The :class:`~catena.links.Linear` child.
        out_size: The output size.
        pool_size: The pool size.
    """

    def __init__(self, in_size: int | None, out_size: int, pool_size: int,
                 initialW: Any = None, initial_bias: Any = 0) -> None:  # noqa: N803
        super().__init__()
        in_size = _util.size_argument('Maxout', 'in_size', in_size, optional=True)
        out_size = _util.size_argument('Maxout', 'out_size', out_size)
        pool_size = _validate.integer('Maxout', 'pool_size', pool_size, 1)
        linear_out_size = out_size * pool_size
        if initialW is not None and (hasattr(initialW, 'shape') or callable(initialW)):
            if in_size is None and hasattr(initialW, 'shape'):
                in_size = initialW.shape[-1]
            if in_size is not None:
                initialW = _reshaped(initialW, (out_size, pool_size, in_size),
                                     (linear_out_size, in_size), 'initialW')
        initial_bias = _reshaped(initial_bias, (out_size, pool_size), (linear_out_size,),
                                 'initial_bias')
        with self.init_scope():
            self.linear = Linear(in_size, linear_out_size, nobias=initial_bias is None,
                                 initialW=initialW, initial_bias=initial_bias)
        self.out_size = out_size
        self.pool_size = pool_size

    def forward(self, x: Any) -> Variable:
        """Applies the linear layer and takes the maximum of each pool.

        Args:
            x: The input, of shape ``(batch, in_size)`` (or more axes, flattened).

        Returns:
            Variable: The output, of shape ``(batch, out_size)``.
        """
        return maxout(self.linear(x), self.pool_size)
