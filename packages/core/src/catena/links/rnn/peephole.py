"""The fully-connected LSTM link with peephole connections, :class:`StatefulPeepholeLSTM`."""

from __future__ import annotations

from typing import Any

from catena import link
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.variable import Variable

__all__ = ['StatefulPeepholeLSTM']


class StatefulPeepholeLSTM(link.Chain):
    """A fully-connected LSTM layer with peephole connections, keeping its state.

    With ``upward(x) + lateral(h)`` split into the per-unit interleaved gate
    sources ``a, i, f, o`` (as :class:`~catena.links.LSTM`), one step is

    .. math::

        c_{\\text{new}} &= \\tanh(a) \\sigma(i + P_i c) + \\sigma(f + P_f c) c, \\\\
        h_{\\text{new}} &= \\sigma(o + P_o c_{\\text{new}}) \\tanh(c_{\\text{new}}),

    with ``P_i``, ``P_f``, ``P_o`` the bias-free links ``peep_i``, ``peep_f``
    and ``peep_o``. The lateral term is skipped when there is no state.

    Args:
        in_size: The input size.
        out_size: The number of units.

    Attributes:
        upward, lateral, peep_i, peep_f, peep_o (~catena.links.Linear): The
            links described above.
        c (~catena.Variable): The cell state, or None.
        h (~catena.Variable): The output, or None.
    """

    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        in_size, out_size = _util.sizes('StatefulPeepholeLSTM', in_size, out_size)
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, c: Any, h: Any) -> None:
        """Sets the cell state and the output (Variables or arrays)."""
        self.c = _util.as_state(self, c, 'c')
        self.h = _util.as_state(self, h, 'h')

    def reset_state(self) -> None:
        """Forgets the state."""
        self.c = None
        self.h = None

    def forward(self, x: Any) -> Variable:
        """Applies one step to ``x`` ``(B, in_size)``, keeps the state and returns ``h``."""
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        c = self.c
        if c is None:
            c = _util.zeros_state(self, x.shape[0], self.state_size, x.dtype)
        a, i, f, o = _util.split_gates(lstm_in)
        i = sigmoid(i + self.peep_i(c))
        f = sigmoid(f + self.peep_f(c))
        c_new = tanh(a) * i + f * c
        o = sigmoid(o + self.peep_o(c_new))
        self.c = c_new
        self.h = o * tanh(c_new)
        return self.h
