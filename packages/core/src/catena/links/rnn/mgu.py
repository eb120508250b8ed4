"""Minimal Gated Unit links: :class:`StatelessMGU` and :class:`StatefulMGU`."""

from __future__ import annotations

from typing import Any

from catena import link
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.array.concat import concat
from catena.functions.math.linear_interpolate import linear_interpolate
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.variable import Variable

__all__ = ['MGUBase', 'StatefulMGU', 'StatelessMGU']


class MGUBase(link.Chain):
    """The two Linear links of a Minimal Gated Unit (Zhou et al., 2016).

    ``W_f`` and ``W_h`` are ``Linear(in_size + out_size, out_size)``; both act
    on the state and the input concatenated as ``[h, x]``. One step computes

    .. math::

        f &= \\sigma(W_f [h; x]), \\qquad
        \\bar h = \\tanh(W_h [f \\odot h; x]), \\\\
        h_{\\text{new}} &= f \\odot \\bar h + (1 - f) \\odot h.

    Args:
        in_size: The input size.
        out_size: The number of units.
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        in_size, out_size = _util.sizes(type(self).__name__, in_size, out_size,
                                        in_optional=False)
        with self.init_scope():
            self.W_f = Linear(in_size + out_size, out_size)
            self.W_h = Linear(in_size + out_size, out_size)

    def _call_mgu(self, h: Any, x: Any) -> Variable:
        f = sigmoid(self.W_f(concat([h, x], axis=1)))
        h_bar = tanh(self.W_h(concat([f * h, x], axis=1)))
        return linear_interpolate(f, h_bar, h)


class StatelessMGU(MGUBase):
    """A Minimal Gated Unit that takes its state as an argument (see :class:`MGUBase`)."""

    def forward(self, h: Any, x: Any) -> Variable:
        """Applies one step to the state ``h`` ``(B, out_size)`` and the input ``x``.

        Returns:
            Variable: The new state.
        """
        return self._call_mgu(h, x)


class StatefulMGU(MGUBase):
    """A Minimal Gated Unit that keeps its state ``h`` between calls (see :class:`MGUBase`).

    The first call after :meth:`reset_state` starts from a zero state.

    Attributes:
        h (~catena.Variable): The state, or None.
    """

    h: Variable | None

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self._state_size = out_size
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h: Any) -> None:
        """Sets the state (a Variable or an array), moved to the link's device."""
        self.h = _util.as_state(self, h, 'h')

    def reset_state(self) -> None:
        """Forgets the state."""
        self.h = None

    def forward(self, x: Any) -> Variable:
        """Applies one step to ``x`` ``(B, in_size)``, keeps and returns the new state."""
        h = self.h
        if h is None:
            h = _util.zeros_state(self, x.shape[0], self._state_size, x.dtype)
        self.h = self._call_mgu(h, x)
        return self.h
