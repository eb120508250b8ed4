"""``n_step_gru`` and ``n_step_bigru``: stacked GRUs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.array.concat import concat
from catena.functions.connection.linear import linear
from catena.functions.rnn._cell import split
from catena.functions.rnn._n_step import n_step_rnn_impl
from catena.variable import Variable


class _GRUCell:
    """The cell of :func:`n_step_gru`: ``W_0..W_2`` (reset, update, new) and ``W_3..W_5``."""

    n_weights = 6
    n_input_weights = 3

    def __init__(self, name: str) -> None:
        self.name = name

    def prepare(self, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, ...]:
        w_x = concat([w[0], w[1], w[2]], axis=0)
        b_x = concat([b[0] + b[3], b[1] + b[4], b[2]], axis=0)
        w_rz = concat([w[3], w[4]], axis=0)
        return w_x, b_x, w_rz, w[5], b[5]

    def step(self, gx: Any, h: Any, c: Any, params: tuple[Any, ...]) -> tuple[Any, Any]:
        _, _, w_rz, w_n, b_n = params
        n_units = h.shape[1]
        gx_rz, gx_n = split(gx, [2 * n_units], axis=1)
        r, z = split(sigmoid(gx_rz + linear(h, w_rz)), 2, axis=1)
        n = tanh(gx_n + r * linear(h, w_n, b_n))
        return n + z * (h - n), None


def n_step_gru_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], use_bi_direction: bool
                    ) -> tuple[Variable, tuple[Variable, ...]]:
    """The stacked GRU of :func:`n_step_gru` and :func:`n_step_bigru`.

    Args:
        n_layers, dropout_ratio, hx, ws, bs, xs: As in :func:`n_step_gru`.
        use_bi_direction: Whether each layer also runs backward in time.

    Returns:
        tuple: ``(hy, ys)``.
    """
    name = 'n_step_bigru' if use_bi_direction else 'n_step_gru'
    hy, _, ys = n_step_rnn_impl(_GRUCell(name), n_layers, dropout_ratio, hx, None, ws, bs, xs,
                                use_bi_direction)
    return hy, ys


def n_step_gru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any]
               ) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked uni-directional GRU over variable-length sequences.

    Each layer computes, for every time step ``t``,

    .. math::

        r_t &= \\sigma(W_0 x_t + W_3 h_{t-1} + b_0 + b_3), \\\\
        z_t &= \\sigma(W_1 x_t + W_4 h_{t-1} + b_1 + b_4), \\\\
        h'_t &= \\tanh(W_2 x_t + b_2 + r_t (W_5 h_{t-1} + b_5)), \\\\
        h_t &= (1 - z_t) h'_t + z_t h_{t-1}.

    The input of layer ``k > 0`` is the output ``h_t`` of layer ``k - 1``,
    after dropout (following ``catena.config.train``).

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
        ws: ``ws[k]`` lists the six weight matrices of layer ``k``:
            ``ws[k][j]`` for ``j < 3`` has shape ``(N, I)`` in the first layer
            and ``(N, N)`` in the others; ``ws[k][j]`` for ``j >= 3`` has
            shape ``(N, N)``.
        bs: ``bs[k]`` lists the six bias vectors of layer ``k``, each ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step.

    Returns:
        tuple: ``(hy, ys)``: the final hidden states, shaped like ``hx``, and
        a tuple of the last layer's outputs, ``ys[t]`` of shape ``(B_t, N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, or the batch sizes increase.

    .. admonition:: Example

        >>> S, B, N, I = 2, 3, 4, 5
        >>> hx = np.zeros((S, B, N), np.float32)
        >>> ws = [[np.full((N, I if k == 0 and j < 3 else N), 0.1, np.float32)
        ...        for j in range(6)] for k in range(S)]
        >>> bs = [[np.zeros(N, np.float32) for j in range(6)] for k in range(S)]
        >>> xs = [np.ones((b, I), np.float32) for b in (3, 2, 1)]
        >>> hy, ys = F.n_step_gru(S, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 3, 4), [(3, 4), (2, 4), (1, 4)])
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, False)


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any]
                 ) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bi-directional GRU over variable-length sequences.

    Every layer runs two GRUs of :func:`n_step_gru`'s form, one forward and
    one backward in time, and outputs their states side by side,
    :math:`h_t = [h^f_t; h^b_t]`. ``ws[2k]``/``bs[2k]`` are the forward
    parameters of layer ``k`` and ``ws[2k + 1]``/``bs[2k + 1]`` the backward
    ones; for ``k > 0`` the input matrices (``j < 3``) have shape
    ``(N, 2N)``. ``hx[2k]`` and ``hx[2k + 1]`` are the initial states of the
    two directions.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio applied to the input of every layer
            but the first (a separate mask for each direction).
        hx: The initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of six weight matrices (see above).
        bs: ``2S`` lists of six bias vectors, each ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step, with
            non-increasing ``B_t`` (see :func:`n_step_gru`).

    Returns:
        tuple: ``(hy, ys)``: the final hidden states, shaped like ``hx``, and
        a tuple of the last layer's outputs, ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, or the batch sizes increase.

    .. admonition:: Example

        >>> S, B, N, I = 1, 2, 3, 4
        >>> hx = np.zeros((2 * S, B, N), np.float32)
        >>> ws = [[np.full((N, I if j < 3 else N), 0.1, np.float32) for j in range(6)]
        ...       for d in range(2)]
        >>> bs = [[np.zeros(N, np.float32) for j in range(6)] for d in range(2)]
        >>> xs = [np.ones((b, I), np.float32) for b in (2, 1)]
        >>> hy, ys = F.n_step_bigru(S, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 3), [(2, 6), (1, 6)])
    """
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, True)
