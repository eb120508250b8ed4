"""``n_step_rnn`` and ``n_step_birnn``: stacked Elman RNNs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.functions.activation.relu import relu
from catena.functions.activation.tanh import tanh
from catena.functions.connection.linear import linear
from catena.functions.rnn._n_step import n_step_rnn_impl
from catena.variable import Variable

__all__ = ['n_step_birnn', 'n_step_rnn', 'n_step_rnn_base', 'n_step_rnn_impl']


class _ElmanCell:
    """``h_t = f(W_0 x_t + b_0 + W_1 h_{t-1} + b_1)`` with ``f`` tanh or relu."""

    n_weights = 2
    n_input_weights = 1

    def __init__(self, activation: str, name: str) -> None:
        if activation not in ('tanh', 'relu'):
            raise ValueError(f'{name}: activation must be "tanh" or "relu"; '
                             f'got {activation!r}')
        self.activation = tanh if activation == 'tanh' else relu
        self.name = name

    def prepare(self, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, ...]:
        return w[0], b[0] + b[1], w[1]

    def step(self, gx: Any, h: Any, c: Any, params: tuple[Any, ...]) -> tuple[Any, Any]:
        return self.activation(gx + linear(h, params[2])), None


def n_step_rnn_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str,
                    use_bi_direction: bool) -> tuple[Variable, tuple[Variable, ...]]:
    """The stacked Elman RNN of :func:`n_step_rnn` and :func:`n_step_birnn`.

    Args:
        n_layers, dropout_ratio, hx, ws, bs, xs, activation: As in
            :func:`n_step_rnn`.
        use_bi_direction: Whether each layer also runs backward in time.

    Returns:
        tuple: ``(hy, ys)``.
    """
    name = 'n_step_birnn' if use_bi_direction else 'n_step_rnn'
    hy, _, ys = n_step_rnn_impl(_ElmanCell(activation, name), n_layers, dropout_ratio, hx,
                                None, ws, bs, xs, use_bi_direction)
    return hy, ys


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = 'tanh'
               ) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked uni-directional Elman RNN over variable-length sequences.

    Each layer computes, for every time step ``t``,

    .. math::

        h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1),

    with ``f`` tanh or ReLU; the input of layer ``k > 0`` is the output
    ``h_t`` of layer ``k - 1``, after dropout (following
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
        ws: ``ws[k]`` lists the two weight matrices of layer ``k``:
            ``ws[k][0]`` of shape ``(N, I)`` for ``k == 0`` and ``(N, N)``
            for the others, and ``ws[k][1]`` of shape ``(N, N)``.
        bs: ``bs[k]`` lists the two bias vectors of layer ``k``, each
            ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        tuple: ``(hy, ys)``: the final hidden states, shaped like ``hx``, and
        a tuple of the last layer's outputs, ``ys[t]`` of shape ``(B_t, N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, the batch sizes increase, or
            ``activation`` is unknown.

    .. admonition:: Example

        >>> hx = np.zeros((1, 2, 1), dtype=np.float32)
        >>> ws = [[np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)]]
        >>> bs = [[np.zeros(1, np.float32), np.zeros(1, np.float32)]]
        >>> xs = [np.array([[1.0], [2.0]], np.float32), np.array([[1.0]], np.float32)]
        >>> hy, ys = F.n_step_rnn(1, 0.0, hx, ws, bs, xs, activation='relu')
        >>> hy.array[0, :, 0], [y.shape for y in ys]
        (array([2., 2.], dtype=float32), [(2, 1), (1, 1)])
    """
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation, False)


def n_step_birnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = 'tanh'
                 ) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bi-directional Elman RNN over variable-length sequences.

    Every layer runs two RNNs of :func:`n_step_rnn`'s form, one forward and
    one backward in time, and outputs their states side by side,
    :math:`h_t = [h^f_t; h^b_t]`. ``ws[2k]``/``bs[2k]`` are the forward
    parameters of layer ``k`` and ``ws[2k + 1]``/``bs[2k + 1]`` the backward
    ones; for ``k > 0`` the input matrices ``ws[2k][0]`` and
    ``ws[2k + 1][0]`` have shape ``(N, 2N)``. ``hx[2k]`` and ``hx[2k + 1]``
    are the initial states of the two directions.

    Args:
        n_layers: The number of layers ``S``.
        dropout_ratio: The dropout ratio applied to the input of every layer
            but the first (a separate mask for each direction).
        hx: The initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of two weight matrices (see above).
        bs: ``2S`` lists of two bias vectors, each ``(N,)``.
        xs: The inputs, one array ``(B_t, I)`` per time step, with
            non-increasing ``B_t`` (see :func:`n_step_rnn`).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        tuple: ``(hy, ys)``: the final hidden states, shaped like ``hx``, and
        a tuple of the last layer's outputs, ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Raises:
        ValueError: If the number or the shapes of ``ws``, ``bs`` or ``xs``
            do not fit ``hx`` and ``n_layers``, the batch sizes increase, or
            ``activation`` is unknown.

    .. admonition:: Example

        >>> hx = np.zeros((2, 1, 1), dtype=np.float32)
        >>> w = [np.ones((1, 1), np.float32), np.ones((1, 1), np.float32)]
        >>> b = [np.zeros(1, np.float32), np.zeros(1, np.float32)]
        >>> xs = [np.array([[1.0]], np.float32), np.array([[2.0]], np.float32)]
        >>> hy, ys = F.n_step_birnn(1, 0.0, hx, [w, w], [b, b], xs, activation='relu')
        >>> ys[0].array, ys[1].array
        (array([[1., 3.]], dtype=float32), array([[3., 2.]], dtype=float32))
    """
    return n_step_rnn_base(n_layers, dropout_ratio, hx, ws, bs, xs, activation, True)
