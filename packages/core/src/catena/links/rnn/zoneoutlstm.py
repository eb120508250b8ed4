"""The fully-connected LSTM link with zoneout, :class:`StatefulZoneoutLSTM`."""

from __future__ import annotations

from typing import Any

from catena import link
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.noise.zoneout import zoneout
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.utils import _validate
from catena.variable import Variable

__all__ = ['StatefulZoneoutLSTM']


class StatefulZoneoutLSTM(link.Chain):
    """A fully-connected LSTM layer with zoneout (Krueger et al., 2016), keeping its state.

    With ``upward(x) + lateral(h)`` split into the per-unit interleaved gate
    sources ``a, i, f, o`` (as :class:`~catena.links.LSTM`), one step is

    .. math::

        \\tilde c &= \\tanh(a) \\sigma(i) + \\sigma(f) c, \\\\
        c_{\\text{new}} &= \\operatorname{zoneout}(c, \\tilde c, r_c), \\qquad
        h_{\\text{new}} = \\operatorname{zoneout}(h, \\sigma(o) \\tanh(\\tilde c), r_h),

    where :func:`~catena.functions.zoneout` keeps each element of the old
    state with the given probability in training mode and takes the new one
    otherwise. A missing state is zeros.

    Args:
        in_size: The input size.
        out_size: The number of units.
        c_ratio: The zoneout ratio of the cell state.
        h_ratio: The zoneout ratio of the output.

    Attributes:
        c (~catena.Variable): The cell state, or None.
        h (~catena.Variable): The output, or None.
    """

    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int, out_size: int, c_ratio: float = 0.5,
                 h_ratio: float = 0.5, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f'StatefulZoneoutLSTM got unexpected keyword arguments '
                            f'{sorted(kwargs)} (use catena.using_config("train", ...) '
                            'instead of train=)')
        super().__init__()
        in_size, out_size = _util.sizes('StatefulZoneoutLSTM', in_size, out_size)
        self.state_size = out_size
        self.c_ratio = _validate.real('StatefulZoneoutLSTM', 'c_ratio', c_ratio, 0, 1)
        self.h_ratio = _validate.real('StatefulZoneoutLSTM', 'h_ratio', h_ratio, 0, 1)
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)

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
        batch = x.shape[0]
        if self.h is None:
            h = _util.zeros_state(self, batch, self.state_size, x.dtype)
        else:
            h = self.h
            lstm_in = lstm_in + self.lateral(h)
        c = self.c
        if c is None:
            c = _util.zeros_state(self, batch, self.state_size, x.dtype)
        a, i, f, o = _util.split_gates(lstm_in)
        c_tmp = tanh(a) * sigmoid(i) + sigmoid(f) * c
        self.c = zoneout(c, c_tmp, self.c_ratio)
        self.h = zoneout(h, sigmoid(o) * tanh(c_tmp), self.h_ratio)
        return self.h
