"""``n_step_lstm`` and ``n_step_bilstm``: stacked LSTMs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.functions.array.reshape import reshape
from catena.functions.array.stack import stack
from catena.functions.connection.linear import linear
from catena.functions.rnn._n_step import n_step_rnn_impl
from catena.functions.rnn.lstm import lstm
from catena.variable import Variable


def _interleave(parts: Sequence[Any]) -> Any:
    """Stacks four ``(N, ...)`` gate parts into :func:`lstm`'s per-unit layout ``(4N, ...)``."""
    stacked = stack(parts, axis=1)
    return reshape(stacked, (stacked.shape[0] * 4,) + stacked.shape[2:])


class _LSTMCell:
    """The cell of :func:`n_step_lstm`: gates input, forget, cell input, output."""

    n_weights = 8
    n_input_weights = 4

    def __init__(self, name: str) -> None:
        self.name = name

    def prepare(self, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, ...]:
        # lstm() wants (cell input, input gate, forget gate, output gate) per unit.
        order = (2, 0, 1, 3)
        w_x = _interleave([w[k] for k in order])
        w_h = _interleave([w[4 + k] for k in order])
        b_x = _interleave([b[k] + b[4 + k] for k in order])
        return w_x, b_x, w_h

    def step(self, gx: Any, h: Any, c: Any, params: tuple[Any, ...]) -> tuple[Any, Any]:
        c, h = lstm(c, gx + linear(h, params[2]))
        return h, c


def n_step_lstm_base(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                     ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                     xs: Sequence[Any], use_bi_direction: bool
                     ) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """The stacked LSTM of :func:`n_step_lstm` and :func:`n_step_bilstm`.

    Args:
        n_layers, dropout_ratio, hx, cx, ws, bs, xs: As in :func:`n_step_lstm`.
        use_bi_direction: Whether each layer also runs backward in time.

    Returns:
        tuple: ``(hy, cy, ys)``.
    """
    name = 'n_step_bilstm' if use_bi_direction else 'n_step_lstm'
    if cx is None:
        raise ValueError(f'{name}: cx must be the initial cell states, shaped like hx; '
                         'got None')
    hy, cy, ys = n_step_rnn_impl(_LSTMCell(name), n_layers, dropout_ratio, hx, cx, ws, bs,
                                 xs, use_bi_direction)
    assert cy is not None
    return hy, cy, ys


def n_step_lstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any]
                ) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked uni-directional LSTM over variable-length sequences.

    Each layer computes, for every time step ``t``,

    .. math::

        i_t &= \\sigma(W_0 x_t + W_4 h_{t-1} + b_0 + b_4), \\\\
        f_t &= \\sigma(W_1 x_t + W_5 h_{t-1} + b_1 + b_5), \\\\
        a_t &= \\tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6), \\\\
        o_t &= \\sigma(W_3 x_t + W_7 h_{t-1} + b_3 + b_7), \\\\
        c_t &= f_t c_{t-1} + i_t a_t, \\qquad h_t = o_t \\tanh(c_t).

    This is the weight order of cuDNN and of Chainer's implementation (the
    Chainer documentation lists ``W_2`` for the output gate and ``W_3`` for
    the cell input, but computes as above). The input of layer ``k > 0`` is
    the output ``h_t`` of layer ``k - 1``, after dropout (following
    ``catena.config.train``).

    ``xs`` is time-major: ``xs[t]`` holds the inputs of time ``t`` of every
    sequence still running, shape ``(B_t, I)``. Sort the sequences by
    decreasing length and transpose them with
    :func:`~catena.functions.transpose_sequence`, so that
    ``xs[t].shape[0] >= xs[t + 1].shape[0]``. The batch shrinks as sequences
    end; the final state of a sequence is its state at its last step.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio applied to the input of every layer
            but the first.
        hx: The initial hidden states, shape ``(S, B, N)``.
        cx: The initial cell states, shape ``(S, B, N)``.
        ws: ``ws[k]`` lists the eight weight matrices of layer ``k``:
            ``ws[k][j]`` for ``j < 4`` has shape ``(N, I)`` in the first layer
            and ``(N, N)`` in the others; ``ws[k][j]`` for ``j >= 4`` has
            shape ``(N, N)``.
        bs: ``bs[k]`` lists the eight bias vectors of layer ``k``, each
            ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step.

    Returns:
        tuple: ``(hy, cy, ys)``: the final hidden and cell states, shaped like
        ``hx``, and a tuple of the last layer's outputs, ``ys[t]`` of shape
        ``(B_t, N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, ``cx`` is not shaped like
            ``hx``, or the batch sizes increase.

    .. admonition:: Example

        >>> S, B, N, I = 2, 3, 4, 5
        >>> hx = cx = np.zeros((S, B, N), np.float32)
        >>> ws = [[np.full((N, I if k == 0 and j < 4 else N), 0.1, np.float32)
        ...        for j in range(8)] for k in range(S)]
        >>> bs = [[np.zeros(N, np.float32) for j in range(8)] for k in range(S)]
        >>> xs = [np.ones((b, I), np.float32) for b in (3, 2, 2, 1)]
        >>> hy, cy, ys = F.n_step_lstm(S, 0.5, hx, cx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 3, 4), [(3, 4), (2, 4), (2, 4), (1, 4)])
    """
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs, False)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                  ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any]
                  ) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked bi-directional LSTM over variable-length sequences.

    Every layer runs two LSTMs of :func:`n_step_lstm`'s form, one forward and
    one backward in time, and outputs their states side by side,
    :math:`h_t = [h^f_t; h^b_t]`. ``ws[2k]``/``bs[2k]`` are the forward
    parameters of layer ``k`` and ``ws[2k + 1]``/``bs[2k + 1]`` the backward
    ones; for ``k > 0`` the input matrices (``j < 4``) have shape
    ``(N, 2N)``. ``hx[2k]``, ``cx[2k]`` and ``hx[2k + 1]``, ``cx[2k + 1]``
    are the initial states of the two directions.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio applied to the input of every layer
            but the first (a separate mask for each direction).
        hx: The initial hidden states, shape ``(2S, B, N)``.
        cx: The initial cell states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of eight weight matrices (see above).
        bs: ``2S`` lists of eight bias vectors, each ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step, with
            non-increasing ``B_t`` (see :func:`n_step_lstm`).

    Returns:
        tuple: ``(hy, cy, ys)``: the final hidden and cell states, shaped like
        ``hx``, and a tuple of the last layer's outputs, ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, ``cx`` is not shaped like
            ``hx``, or the batch sizes increase.

    .. admonition:: Example

        >>> S, B, N, I = 1, 2, 3, 4
        >>> hx = cx = np.zeros((2 * S, B, N), np.float32)
        >>> ws = [[np.full((N, I if j < 4 else N), 0.1, np.float32) for j in range(8)]
        ...       for d in range(2)]
        >>> bs = [[np.zeros(N, np.float32) for j in range(8)] for d in range(2)]
        >>> xs = [np.ones((b, I), np.float32) for b in (2, 1)]
        >>> hy, cy, ys = F.n_step_bilstm(S, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 3), [(2, 6), (1, 6)])
    """
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs, True)
