"""The Bias link: adds a learned or given bias."""

from __future__ import annotations

from typing import Any

from catena import initializers, link, variable
from catena.functions.math.bias import bias
from catena.links.connection import _util
from catena.utils import _validate


class Bias(link.Link):
    """Broadcasted addition of a bias: applies :func:`~catena.functions.bias`.

    With ``shape`` it holds a learned bias ``b`` and takes one input;
    without, it takes ``(x, y)`` and adds ``y``.

    Args:
        axis: The first axis of the input that the bias's axes match.
        shape: The shape of the learned bias ``b`` (zero at first), or None
            for a link without parameters.

    Attributes:
        b (~catena.Parameter): The learned bias (only with ``shape``).
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        axis = _validate.integer('Bias', 'axis', axis, None)
        shape = _validate.shape('Bias', 'shape', shape, optional=True)
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(initializers.Zero(), shape)
        self.axis = axis

    def forward(self, *xs: Any) -> variable.Variable:
        """Returns ``x + b`` (learned ``b``) or ``x + y``, broadcast from ``axis``.

        Args:
            xs: ``(x,)`` with a learned ``b``, or ``(x, y)`` without.

        Raises:
            TypeError: For another number of inputs (also an AssertionError,
                as in Chainer).
        """
        if 'b' in self._params:
            if len(xs) != 1:
                raise _util.input_count_error('Bias', xs, 1, 'with a learned b')
            return bias(xs[0], self.b, self.axis)
        if len(xs) != 2:
            raise _util.input_count_error('Bias', xs, 2, 'without a shape (no learned b)')
        return bias(xs[0], xs[1], self.axis)
