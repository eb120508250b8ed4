"""The :class:`CRF1d` link."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import initializers
from catena.functions.array.transpose_sequence import transpose_sequence
from catena.functions.loss.crf1d import argmax_crf1d, crf1d
from catena.link import Link
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


def _longest_first(xs: Sequence[Any]) -> list[int]:
    """The indices of ``xs`` sorted by decreasing length (stable)."""
    return sorted(range(len(xs)), key=lambda i: -len(xs[i]))


class CRF1d(Link):
    """Linear-chain conditional random field loss layer.

    Holds the ``n_label x n_label`` transition cost matrix ``cost`` and
    computes :func:`~catena.functions.crf1d` and, with :meth:`argmax`, the
    Viterbi path (:func:`~catena.functions.argmax_crf1d`).

    By default the sequences come time-major, as those functions take them:
    ``xs[i]`` holds position ``i`` of every sequence, longest sequences
    first. With ``transpose=True`` they come batch-major instead: ``xs[b]``
    is sequence ``b`` of shape ``(length_b, n_label)`` in any order.

    Args:
        n_label: The number of labels.
        initial_cost: The initializer of ``cost`` (default zeros).
        transpose: The default of the ``transpose`` argument of
            :meth:`forward` and :meth:`argmax`.

    Attributes:
        cost: The transition cost :class:`~catena.Parameter`.
        transpose: Whether the sequences are batch-major by default.
    """

    def __init__(self, n_label: int, initial_cost: Any = None, transpose: bool = False) -> None:
        super().__init__()
        n_label = _validate.integer('CRF1d', 'n_label', n_label, 1)
        _validate.broadcastable('CRF1d', 'initial_cost', initial_cost, (n_label, n_label))
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = Parameter(initial_cost, (n_label, n_label))
        self.transpose = transpose

    def forward(self, xs: Sequence[Any], ys: Sequence[Any], reduce: str = 'mean',
                transpose: bool = False) -> Variable:
        """Computes the negative log-likelihood of the label sequences ``ys``.

        Args:
            xs: The label costs: time-major (see :func:`~catena.functions.crf1d`),
                or batch-major when transposing.
            ys: The true labels, laid out like ``xs``.
            reduce: ``'mean'`` (over the batch) or ``'no'`` (one loss per sequence;
                in the time-major, longest-first order of the sequences).
            transpose: Whether ``xs`` and ``ys`` are batch-major (or ``self.transpose``).

        Returns:
            Variable: The loss.
        """
        if transpose or self.transpose:
            order = _longest_first(xs)
            xs = transpose_sequence([xs[i] for i in order])
            ys = transpose_sequence([ys[i] for i in order])
        return crf1d(self.cost, xs, ys, reduce)

    def argmax(self, xs: Sequence[Any], transpose: bool = False) -> tuple[Variable, list[Any]]:
        """Returns the best label sequences (Viterbi).

        Args:
            xs: The label costs, laid out as in :meth:`forward`.
            transpose: Whether ``xs`` is batch-major (or ``self.transpose``);
                the path then comes back batch-major in the order of ``xs``.

        Returns:
            tuple: ``(score, path)`` as :func:`~catena.functions.argmax_crf1d`
            returns them (the score in the longest-first order).
        """
        if not (transpose or self.transpose):
            return argmax_crf1d(self.cost, xs)
        order = _longest_first(xs)
        score, path = argmax_crf1d(self.cost, transpose_sequence([xs[i] for i in order]))
        by_sequence = [p.array for p in transpose_sequence(path)]
        restored: list[Any] = [None] * len(order)
        for position, index in enumerate(order):
            restored[index] = by_sequence[position]
        return score, restored
