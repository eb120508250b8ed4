"""The :class:`Swish` link."""

from __future__ import annotations

from typing import Any

from catena.functions.activation.swish import swish
from catena.link import Link
from catena.links.connection._util import input_shape
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


class Swish(Link):
    """Swish activation, ``x * sigmoid(beta * x)``, with a learned ``beta``.

    Args:
        beta_shape: The shape of ``beta``, or None to take it from the first
            input (its shape after the batch axis).
        beta_init: The initializer of ``beta`` (a scalar, an array or an
            initializer).

    Attributes:
        beta: The :class:`~catena.Parameter` ``beta``.
    """

    def __init__(self, beta_shape: tuple[int, ...] | None, beta_init: Any = 1.0) -> None:
        super().__init__()
        beta_shape = _validate.shape('Swish', 'beta_shape', beta_shape, optional=True)
        if beta_shape is not None:
            _validate.broadcastable('Swish', 'beta_init', beta_init, beta_shape)
        with self.init_scope():
            if beta_shape is None:
                self.beta = Parameter(beta_init)
            else:
                self.beta = Parameter(beta_init, beta_shape)

    def forward(self, x: Any) -> Variable:
        """Applies swish to ``x``.

        Args:
            x: The input Variable or array; its first axis is the batch.

        Returns:
            Variable: The output, of x's shape.
        """
        if self.beta.array is None:
            self.beta.initialize(input_shape('Swish', x)[1:])
        return swish(x, self.beta)
