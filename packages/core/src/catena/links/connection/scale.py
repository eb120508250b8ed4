"""The Scale link: multiplies by a learned or given scale, optionally adds a bias."""

from __future__ import annotations

from typing import Any

from catena import initializers, link, variable
from catena.functions.math.scale import scale
from catena.links.connection import _util
from catena.links.connection.bias import Bias
from catena.utils import _validate


class Scale(link.Chain):
    """Broadcasted multiplication by a scale: applies :func:`~catena.functions.scale`,
    then an optional :class:`Bias`.

    With ``W_shape`` it holds a learned scale ``W`` (one at first) and takes
    one input; without, it takes ``(x, y)`` and multiplies ``x`` by ``y``.

    Args:
        axis: The first axis of the input that the scale's axes match.
        W_shape: The shape of the learned scale ``W``, or None.
        bias_term: Whether to add a learned bias after scaling.
        bias_shape: The shape of the bias when there is no ``W_shape``
            (with ``W_shape``, the bias has that shape).

    Attributes:
        W (~catena.Parameter): The learned scale (only with ``W_shape``).
        bias (Bias): The bias link (only with ``bias_term``).
    """

    def __init__(self, axis: int = 1, W_shape: Any = None, bias_term: bool = False,
                 bias_shape: Any = None) -> None:
        super().__init__()
        self.axis = _validate.integer('Scale', 'axis', axis, None)
        W_shape = _validate.shape('Scale', 'W_shape', W_shape, optional=True)
        bias_shape = _validate.shape('Scale', 'bias_shape', bias_shape, optional=True)
        with self.init_scope():
            if W_shape is not None:
                self.W = variable.Parameter(initializers.One(), W_shape)
                bias_shape = W_shape
            elif bias_term and bias_shape is None:
                raise ValueError('Scale needs bias_shape when bias_term is True and there is '
                                 'no learned W (W_shape is None)')
            if bias_term:
                self.bias = Bias(axis, bias_shape)

    def forward(self, *xs: Any) -> variable.Variable:
        """Returns ``x * W`` (or ``x * y``), broadcast from ``axis``, plus the bias.

        Args:
            xs: ``(x,)`` with a learned ``W``, or ``(x, y)`` without.

        Raises:
            TypeError: For another number of inputs (also an AssertionError,
                as in Chainer).
        """
        if 'W' in self._params:
            if len(xs) != 1:
                raise _util.input_count_error('Scale', xs, 1, 'with a learned W')
            z = scale(xs[0], self.W, self.axis)
        else:
            if len(xs) != 2:
                raise _util.input_count_error('Scale', xs, 2, 'without W_shape')
            z = scale(xs[0], xs[1], self.axis)
        if 'bias' in self._children:
            z = self.bias(z)
        return z
