"""``crf1d`` and ``argmax_crf1d``: the linear-chain CRF's likelihood and its Viterbi path.

Both take a ``K x K`` transition cost matrix and the sequence of per-position
costs ``xs`` (``xs[i]`` of shape ``(B_i, K)``), time-major and sorted by
decreasing length, so that ``B_0 >= B_1 >= ...``: row ``b`` of ``xs[i]``
belongs to sequence ``b``, and only the first ``B_i`` sequences reach
position ``i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy

from catena import backend
from catena.functions.array.concat import concat
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.get_item import get_item
from catena.functions.array.select_item import select_item
from catena.functions.array.split_axis import split_axis
from catena.functions.loss import _structured
from catena.functions.math.logsumexp import logsumexp
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


def _check_sequences(function: str, cost: Any, xs: Any, ys: Any = None) -> None:
    for name, value in (('xs', xs), ('ys', ys)):
        if value is not None and not isinstance(value, Sequence):
            raise TypeError(f'{function}: {name} must be a list or tuple of Variables or '
                            f'arrays (one per position); got {type(value).__name__}')
    if len(xs) == 0:
        raise ValueError(f'{function}: xs must hold at least one position; got an empty '
                         f'{type(xs).__name__}')
    cost_a = _structured.array_of(cost)
    if cost_a.dtype.kind != 'f' or cost_a.ndim != 2 or cost_a.shape[0] != cost_a.shape[1]:
        raise _structured.fail(function, 'cost is a square floating point matrix (K, K)',
                               cost=cost_a)
    n_label = cost_a.shape[0]
    previous = None
    for i, x in enumerate(xs):
        x_a = _structured.array_of(x)
        if x_a.ndim != 2 or x_a.shape[1] != n_label or x_a.dtype != cost_a.dtype:
            raise _structured.fail(function, f'xs[{i}].shape == (B_{i}, cost.shape[0]) and '
                                   f'xs[{i}].dtype == cost.dtype', cost=cost_a,
                                   **{f'xs[{i}]': x_a})
        if previous is not None and x_a.shape[0] > previous.shape[0]:
            raise _structured.fail(
                function, f'xs[{i}].shape[0] <= xs[{i - 1}].shape[0] (sequences sorted by '
                'decreasing length)', **{f'xs[{i - 1}]': previous, f'xs[{i}]': x_a})
        previous = x_a
    if ys is None:
        return
    if len(ys) != len(xs):
        raise ValueError(f'{function}: ys must have one element per element of xs; got '
                         f'len(xs)={len(xs)} and len(ys)={len(ys)}')
    for i, (x, y) in enumerate(zip(xs, ys)):
        x_a, y_a = _structured.array_of(x), _structured.array_of(y)
        if y_a.dtype.kind != 'i' or y_a.shape != x_a.shape[:1]:
            raise _structured.fail(function, f'ys[{i}] is an integer array of shape '
                                   f'(xs[{i}].shape[0],)', **{f'xs[{i}]': x_a, f'ys[{i}]': y_a})
        _structured.check_range(function, f'ys[{i}]', y_a, n_label,
                                f'cost.shape={tuple(cost_a.shape)}')


def _path_score(cost: Any, xs: Sequence[Any], ys: Sequence[Any]) -> Variable:
    """The total cost of the tag sequences ``ys``, one value per sequence."""
    ys = [_structured.array_of(y) for y in ys]
    score = select_item(xs[0], ys[0])
    finished = []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1]):
        batch = x.shape[0]
        if score.shape[0] > batch:
            score, rest = cast('tuple[Variable, Variable]', split_axis(score, [batch], axis=0))
            finished.append(rest)
        score = score + select_item(x, y) + get_item(cost, (y_prev[:batch], y))
    if finished:
        score = concat([score] + finished[::-1], axis=0)
    return score


def crf1d(cost: Any, xs: Sequence[Any], ys: Sequence[Any], reduce: str = 'mean') -> Variable:
    """Negative log-likelihood of a linear-chain conditional random field.

    With the transition cost :math:`c_{st}` from label :math:`s` to label
    :math:`t`, the cost :math:`x_{it}` of label :math:`t` at position
    :math:`i` and the true labels :math:`y_1, \\dots, y_l`, the loss of a
    sequence is

    .. math::

        L = -\\Big(\\sum_{i=1}^{l} x_{i y_i} + \\sum_{i=1}^{l-1} c_{y_i y_{i+1}}
        - \\log Z\\Big),

    where the partition function :math:`Z` sums the exponentiated score of
    every label sequence of length :math:`l` (computed by the forward
    algorithm in log space).

    Sequences of different lengths are given time-major and sorted by
    decreasing length: for the sequences ``a b c``, ``a b`` and ``a b c d``,
    sort them into ``a b c d``, ``a b c``, ``a b`` and pass
    ``xs = [[a, a, a], [b, b, b], [c, c], [d]]`` (``xs[i]`` holding one row
    per sequence that reaches position ``i``), and ``ys`` likewise.

    Args:
        cost: The ``K x K`` transition cost matrix, a Variable or array.
        xs: A list of Variables or arrays, ``xs[i]`` of shape ``(B_i, K)``
            with ``B_0 >= B_1 >= ...``, in the dtype of ``cost``.
        ys: A list of integer arrays, ``ys[i]`` of shape ``(B_i,)`` with
            labels in ``[0, K)``.
        reduce: ``'mean'`` (the mean over the ``B_0`` sequences) or ``'no'``
            (one loss per sequence, shape ``(B_0,)``).

    Returns:
        Variable: The negative log-likelihood.

    Raises:
        ValueError: If ``reduce`` is neither of the two, a label is out of
            range or ``xs`` and ``ys`` differ in length.
        InvalidType: If the shapes or dtypes do not fit together (the
            message gives all arrays involved).

    .. admonition:: Example

        >>> cost = np.zeros((2, 2), dtype=np.float32)
        >>> xs = [np.zeros((1, 2), dtype=np.float32)] * 3
        >>> ys = [np.zeros(1, dtype=np.int32)] * 3
        >>> F.crf1d(cost, xs, ys).array  # log(2 ** 3): eight equally likely paths
        array(2.0794415, dtype=float32)
    """
    _structured.check_reduce('crf1d', reduce, ('mean', 'no'))
    _check_sequences('crf1d', cost, xs, ys)
    n_batch = xs[0].shape[0]

    alpha = xs[0]
    finished = []
    for x in xs[1:]:
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            alpha, rest = cast('tuple[Variable, Variable]', split_axis(alpha, [batch], axis=0))
            finished.append(rest)
        # alpha[b, j] <- logsumexp_i(alpha[b, i] + cost[i, j]) + x[b, j]
        alpha = logsumexp(expand_dims(alpha, 2) + cost, axis=1) + x
    if finished:
        alpha = concat([alpha] + finished[::-1], axis=0)
    loss = logsumexp(alpha, axis=1) - _path_score(cost, xs, ys)
    if reduce == 'mean':
        return _sum(loss) * (1.0 / n_batch)
    return loss


def argmax_crf1d(cost: Any, xs: Sequence[Any]) -> tuple[Variable, list[Any]]:
    """The most probable label sequences of a linear-chain CRF (Viterbi).

    Args:
        cost: The ``K x K`` transition cost matrix, a Variable or array.
        xs: A list of Variables or arrays, ``xs[i]`` of shape ``(B_i, K)``
            with ``B_0 >= B_1 >= ...`` (see :func:`crf1d` for the layout).

    Returns:
        tuple: ``(score, path)``. ``score`` is a Variable of shape
        ``(B_0,)``: the largest total cost (the unnormalized log-probability)
        of each sequence, differentiable with respect to ``cost`` and
        ``xs``. ``path`` is a list of ``len(xs)`` int32 arrays, ``path[i]``
        of shape ``(B_i,)`` holding the labels of that best sequence.

    .. admonition:: Example

        >>> cost = np.array([[0.0, -5.0], [0.0, -1.0]], dtype=np.float32)
        >>> xs = [np.array([[1.0, 0.0]], np.float32), np.array([[0.0, 1.0]], np.float32)]
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> score.array, [p.tolist() for p in path]
        (array([1.], dtype=float32), [[0], [0]])
    """
    _check_sequences('argmax_crf1d', cost, xs)
    cost_a = _structured.array_of(cost)
    xs_a = [_structured.array_of(x) for x in xs]
    xp = backend.get_array_module(cost_a)

    delta = xs_a[0]
    backpointers = []
    ended = []  # the best last labels of the sequences that end before each step
    for x in xs_a[1:]:
        batch = x.shape[0]
        ended.append(delta[batch:].argmax(axis=1))
        scores = delta[:batch, :, None] + cost_a
        backpointers.append(scores.argmax(axis=1))
        delta = scores.max(axis=1) + x

    labels = delta.argmax(axis=1)
    path = [labels]
    for pointers, rest in zip(backpointers[::-1], ended[::-1]):
        labels = pointers[xp.arange(pointers.shape[0]), labels]
        labels = xp.concatenate((labels, rest))
        path.append(labels)
    path = [labels.astype(numpy.int32, copy=False) for labels in path[::-1]]
    return _path_score(cost, xs, path), path
