"""The Bias link: adds a learned or given bias."""

from __future__ import annotations

from typing import Any

from catena import initializers, link, variable
from catena.functions.math.bias import bias


class Bias(link.Link):
    """Broadcasted addition of a bias: applies :func:`~catena.functions.bias`.

    Called with one input, it adds its learned parameter ``b`` (which needs
    ``shape``); called with two, ``link(x, y)``, it adds ``y``.

    Args:
        axis: The first axis of the input that the bias's axes match.
        shape: The shape of the learned bias ``b`` (zero at first), or None
            for a link without parameters.

    Attributes:
        b (~catena.Parameter): The learned bias (only with ``shape``).
    """

    def __init__(self, axis: int = 1, shape: Any = None) -> None:
        super().__init__()
        if shape is not None:
            with self.init_scope():
                self.b = variable.Parameter(initializers.Zero(), shape)
        self.axis = axis

    def forward(self, *xs: Any) -> variable.Variable:
        """Returns ``x + y`` (``y`` broadcast from ``axis``), ``y`` given or ``b``.

        Args:
            xs: ``(x,)`` to add the learned ``b``, or ``(x, y)``.
        """
        if len(xs) == 2:
            x, y = xs
        elif len(xs) == 1:
            if 'b' not in self._params:
                raise ValueError('Bias without a shape has no learned bias: call it with two '
                                 'inputs (x, y)')
            x, y = xs[0], self.b
        else:
            raise TypeError(f'Bias takes one or two inputs; got {len(xs)}')
        return bias(x, y, self.axis)
