"""The fully-connected LSTM links: :class:`LSTM` (stateful) and :class:`StatelessLSTM`."""

from __future__ import annotations

from typing import Any

from catena import link
from catena.functions.array.concat import concat
from catena.functions.array.split_axis import split_axis
from catena.functions.rnn.lstm import lstm
from catena.links.connection._util import input_shape
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.utils.array import size_of_shape
from catena.variable import Variable

__all__ = ['LSTM', 'LSTMBase', 'StatelessLSTM']


class LSTMBase(link.Chain):
    """The parameters shared by :class:`LSTM` and :class:`StatelessLSTM`.

    ``upward`` (``Linear(in_size, 4 * out_size)``) projects the input and
    ``lateral`` (``Linear(out_size, 4 * out_size, nobias=True)``) the previous
    output; their outputs hold the four gate sources of each unit interleaved,
    as :func:`~catena.functions.lstm` takes them.

    Args:
        in_size: The input size, or None to infer it at the first call.
            A single size argument means ``(None, out_size)``.
        out_size: The number of units.
        lateral_init: Initializer of each ``(out_size, out_size)`` row block
            of ``lateral.W``; None means LeCunNormal.
        upward_init: Initializer of each ``(out_size, in_size)`` row block of
            ``upward.W``; None means LeCunNormal.
        bias_init: Initializer of the cell input, input gate and output gate
            biases; None means zero.
        forget_bias_init: Initializer of the forget gate biases; None means one.
    """

    def __init__(self, in_size: int | None, out_size: int | None = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        if out_size is None:
            raise ValueError(f'{type(self).__name__} needs an out_size; got None')
        in_size, out_size = _util.sizes(type(self).__name__, in_size, out_size)
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        for name in ('lateral_init', 'upward_init', 'bias_init', 'forget_bias_init'):
            _util.get_initializer(getattr(self, name), type(self).__name__, name)
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size, initialW=0)
            self.lateral = Linear(out_size, 4 * out_size, initialW=0, nobias=True)
        if in_size is not None:
            self._initialize_params()

    def _initialize_params(self) -> None:
        n = self.state_size
        lateral_init = _util.get_initializer(self.lateral_init)
        upward_init = _util.get_initializer(self.upward_init)
        bias_init = _util.get_initializer(self.bias_init)
        forget_bias_init = _util.get_initializer(self.forget_bias_init)
        for start in range(0, 4 * n, n):
            lateral_init(self.lateral.W.array[start:start + n])
            upward_init(self.upward.W.array[start:start + n])
        bias = self.upward.b
        assert bias is not None
        gates = bias.array.reshape(n, 4)
        bias_init(gates[:, 0])
        bias_init(gates[:, 1])
        forget_bias_init(gates[:, 2])
        bias_init(gates[:, 3])

    def _lazy_init(self, x: Any) -> None:
        if self.upward.W.array is None:
            shape = input_shape(type(self).__name__, x)
            in_size = size_of_shape(shape[1:]) if len(shape) > 1 else 0
            if in_size == 0:
                raise ValueError(f'{type(self).__name__} cannot infer its in_size from '
                                 f'x.shape={shape}: the input needs non-empty feature axes')
            self.upward._initialize_params(in_size)
            self._initialize_params()


class StatelessLSTM(LSTMBase):
    """A fully-connected LSTM layer that takes its state as arguments.

    ``forward(c, h, x)`` computes ``lstm_in = upward(x) + lateral(h)`` (the
    lateral term is skipped when ``h`` is None) and returns
    ``F.lstm(c, lstm_in)``; ``c`` None means zeros. Parameters and arguments
    are those of :class:`LSTMBase`.
    """

    def forward(self, c: Any, h: Any, x: Any) -> tuple[Variable, Variable]:
        """Applies one step.

        Args:
            c: The previous cell state ``(B, out_size)``, or None (zeros).
            h: The previous output ``(B, out_size)``, or None.
            x: The input ``(B, in_size)``.

        Returns:
            tuple: ``(c_new, h_new)``.
        """
        self._lazy_init(x)
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in = lstm_in + self.lateral(h)
        if c is None:
            c = _util.zeros_state(self, x.shape[0], self.state_size, x.dtype)
        return lstm(c, lstm_in)


class LSTM(LSTMBase):
    """A fully-connected LSTM layer that keeps its state (``c``, ``h``) between calls.

    Each call computes ``lstm_in = upward(x) + lateral(h)`` with the kept
    output ``h`` (no lateral term at the first call after
    :meth:`reset_state`), updates the cell state with
    :func:`~catena.functions.lstm` and returns the new output. The batch may
    shrink from one call to the next (sequences sorted by decreasing length):
    then only the first ``len(x)`` rows of the state are updated and the
    other rows are kept. It may not grow.

    Args:
        in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init: As in
            :class:`LSTMBase`.

    Attributes:
        upward (~catena.links.Linear): The input projection.
        lateral (~catena.links.Linear): The output projection (no bias).
        c (~catena.Variable): The cell state, or None.
        h (~catena.Variable): The output, or None.
    """

    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int | None = None,
                 lateral_init: Any = None, upward_init: Any = None, bias_init: Any = None,
                 forget_bias_init: Any = None) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init,
                         forget_bias_init)
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, c: Any, h: Any) -> None:
        """Sets the cell state and the output (Variables or arrays), moved to the link's device."""
        self.c = _util.as_state(self, c, 'c')
        self.h = _util.as_state(self, h, 'h')

    def reset_state(self) -> None:
        """Forgets the state: the next call starts from zeros."""
        self.c = None
        self.h = None

    def forward(self, x: Any) -> Variable:
        """Applies one step and keeps the new state.

        Args:
            x: The input ``(B, in_size)``; ``B`` may not exceed the batch of
                the kept state.

        Returns:
            Variable: The new output ``(B, out_size)``.
        """
        self._lazy_init(x)
        batch = x.shape[0]
        lstm_in = self.upward(x)
        h_rest = None
        if self.h is not None:
            h_size = self.h.shape[0]
            if h_size < batch:
                raise TypeError(f'LSTM: the batch size of x ({batch}) must not exceed that '
                                f'of the previous state h ({h_size})')
            if batch == 0:
                h_rest = self.h
            elif h_size > batch:
                parts = split_axis(self.h, [batch], axis=0)
                assert isinstance(parts, tuple)
                h_update, h_rest = parts
                lstm_in = lstm_in + self.lateral(h_update)
            else:
                lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = _util.zeros_state(self, batch, self.state_size, x.dtype)
        self.c, y = lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat([y, h_rest], axis=0)
        return y
