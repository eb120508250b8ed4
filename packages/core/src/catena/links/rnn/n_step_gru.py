"""The stacked GRU links over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from catena.links.rnn.n_step_rnn import NStepRNNBase
from catena.variable import Variable

__all__ = ['NStepBiGRU', 'NStepGRU', 'NStepGRUBase']


class NStepGRUBase(NStepRNNBase):
    """The base of :class:`NStepGRU` and :class:`NStepBiGRU`: six weights per child.

    ``w0 ... w2`` multiply the input and ``w3 ... w5`` the hidden state, as
    :func:`~catena.functions.n_step_gru` takes them. Arguments as in
    :class:`~catena.links.rnn.n_step_rnn.NStepRNNBase`.
    """

    n_weights = 6

    def rnn(self, *args: Any) -> tuple[Any, ...]:
        function = n_step_bigru if self.use_bi_direction else n_step_gru
        return function(*args)

    def forward(self, hx: Any, xs: Sequence[Any]) -> tuple[Variable, list[Variable]]:
        """Runs the stacked GRU.

        Args:
            hx: The initial states ``(n_layers * D, B, out_size)``, or None
                (zeros).
            xs: ``B`` sequences, ``xs[i]`` of shape ``(L_i, in_size)``.

        Returns:
            tuple: ``(hy, ys)``: the final states and the outputs ``ys[i]`` of
            shape ``(L_i, D * out_size)``.
        """
        hy, ys = self._call([hx], xs)
        return hy, ys


class NStepGRU(NStepGRUBase):
    """Stacked uni-directional GRU for sequences (see :class:`NStepGRUBase`)."""


class NStepBiGRU(NStepGRUBase):
    """Stacked bi-directional GRU for sequences (see :class:`NStepGRUBase`)."""

    use_bi_direction = True
