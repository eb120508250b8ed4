"""The stacked LSTM links over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from catena.links.rnn.n_step_rnn import NStepRNNBase
from catena.variable import Variable

__all__ = ['NStepBiLSTM', 'NStepLSTM', 'NStepLSTMBase']


class NStepLSTMBase(NStepRNNBase):
    """The base of :class:`NStepLSTM` and :class:`NStepBiLSTM`: eight weights per child.

    ``w0 ... w3`` multiply the input and ``w4 ... w7`` the hidden state, as
    :func:`~catena.functions.n_step_lstm` takes them. Arguments as in
    :class:`~catena.links.rnn.n_step_rnn.NStepRNNBase`.
    """

    n_weights = 8
    n_cells = 2

    def rnn(self, *args: Any) -> tuple[Any, ...]:
        function = n_step_bilstm if self.use_bi_direction else n_step_lstm
        return function(*args)

    def forward(self, hx: Any, cx: Any, xs: Sequence[Any]
                ) -> tuple[Variable, Variable, list[Variable]]:
        """Runs the stacked LSTM.

        Args:
            hx: The initial hidden states ``(n_layers * D, B, out_size)``, or
                None (zeros).
            cx: The initial cell states, shaped like ``hx``, or None (zeros).
            xs: ``B`` sequences, ``xs[i]`` of shape ``(L_i, in_size)``.

        Returns:
            tuple: ``(hy, cy, ys)``: the final hidden and cell states and the
            outputs ``ys[i]`` of shape ``(L_i, D * out_size)``.
        """
        hy, cy, ys = self._call([hx, cx], xs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked uni-directional LSTM for sequences (see :class:`NStepLSTMBase`)."""


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bi-directional LSTM for sequences (see :class:`NStepLSTMBase`)."""

    use_bi_direction = True
