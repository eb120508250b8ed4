"""``connectionist_temporal_classification``: the CTC loss (Graves et al., 2006).

The forward (alpha) and backward (beta) recursions run in log space over the
extended label sequence ``blank l_1 blank l_2 ... l_L blank`` (``S = 2L + 1``
states), vectorized over the batch and the states; Python loops only over
time. Log-zero is a large negative number rather than ``-inf`` so that no
``inf - inf`` appears; a sequence that no alignment can produce (too many
labels for its length) gets an infinite loss and a zero gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.stack import stack
from catena.functions.loss import _structured
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable

_NAME = 'connectionist_temporal_classification'
_LOG_ZERO = -1e30


def _logsumexp3(xp: Any, a: Any, b: Any, c: Any) -> Any:
    """``log(exp(a) + exp(b) + exp(c))`` element-wise, with the maximum factored out."""
    m = xp.maximum(xp.maximum(a, b), c)
    total = xp.exp(a - m)
    total += xp.exp(b - m)
    total += xp.exp(c - m)
    xp.log(total, out=total)
    total += m
    return total


class ConnectionistTemporalClassification(FunctionNode):
    """CTC loss of ``(input_length, label_length, t, x)`` with ``x`` of shape ``(T, B, V)``.

    ``x`` holds unnormalized scores; the softmax over ``V`` is part of the
    loss. Only ``x`` gets a gradient, and only to first order (as in Chainer).
    """

    _state: Any = None  # what the gradient needs, kept from forward to backward
    _gradient: Any = None  # the residual, once computed (backward may run again)

    def __init__(self, blank_symbol: int, reduce: str = 'mean') -> None:
        _structured.check_reduce(_NAME, reduce, ('mean', 'no'))
        if (isinstance(blank_symbol, bool) or not isinstance(blank_symbol, (int, numpy.integer))
                or blank_symbol < 0):
            raise TypeError(f'{_NAME}: blank_symbol must be a non-negative int; '
                            f'got {blank_symbol!r}')
        self.blank_symbol = int(blank_symbol)
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        names = ('input_length', 'label_length', 't', 'x')
        type_check._argname(in_types, names)
        infos = dict(zip(names, (_structured.info(a) for a in in_types)))
        x, t = infos['x'], infos['t']
        if x.dtype.kind != 'f' or len(x.shape) != 3:
            raise _structured.fail(None, 'x is a floating point array of shape (T, B, V)', x=x)
        if t.dtype.kind != 'i' or len(t.shape) != 2 or t.shape[0] != x.shape[1]:
            raise _structured.fail(None, 't is an integer array of shape (B, M) with '
                                   'B == x.shape[1]', x=x, t=t)
        for name in ('input_length', 'label_length'):
            length = infos[name]
            if length.dtype.kind != 'i' or tuple(length.shape) != (x.shape[1],):
                raise _structured.fail(None, f'{name} is an integer array of shape (B,) '
                                       'with B == x.shape[1]', x=x, **{name: length})

    def _check_values(self, input_length: Any, label_length: Any, t: Any, x: Any) -> Any:
        n_time, _, n_vocab = x.shape
        if self.blank_symbol >= n_vocab:
            raise ValueError(f'{_NAME}: blank_symbol must be less than the number of labels '
                             f'V={n_vocab} (x.shape={tuple(x.shape)}); got {self.blank_symbol}')
        for name, length, low, high in (('input_length', input_length, 1, n_time),
                                        ('label_length', label_length, 0, t.shape[1])):
            if length.size and (int(length.min()) < low or int(length.max()) > high):
                raise ValueError(
                    f'{_NAME}: every element of {name} must lie in [{low}, {high}] '
                    f'(x.shape={tuple(x.shape)}, t.shape={tuple(t.shape)}); got values from '
                    f'{int(length.min())} to {int(length.max())}')
        xp = backend.get_array_module(t)
        valid = xp.arange(t.shape[1])[None, :] < label_length[:, None]
        _structured.check_range(_NAME, 't (within label_length)', t[valid], n_vocab,
                                f'x.shape={tuple(x.shape)}')
        return valid

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((3,))  # for its place in the graph of the gradient
        input_length, label_length, t, x = inputs
        valid = self._check_values(input_length, label_length, t, x)
        xp = backend.get_array_module(x)
        n_time, batch, _ = x.shape
        n_state = 2 * t.shape[1] + 1
        work = numpy.float32 if x.dtype == numpy.float16 else x.dtype.type
        log_zero = work(_LOG_ZERO)

        log_y = x.astype(work)  # a fresh array, normalized in place
        log_y -= log_y.max(axis=2, keepdims=True)
        log_y -= xp.log(xp.exp(log_y).sum(axis=2, keepdims=True))

        blank = self.blank_symbol
        path = xp.full((batch, n_state), blank, dtype=t.dtype)
        path[:, 1::2] = t * valid + blank * ~valid  # padding beyond label_length -> blank
        rows = xp.arange(batch)
        log_y_path = log_y[:, rows[:, None], path]  # (T, B, S)
        # Skipping a blank (s - 2 -> s) is allowed only into a label that differs
        # from the label two states back.
        skip_penalty = xp.full((batch, n_state), log_zero, dtype=work)
        allowed = (path[:, 2:] != blank) & (path[:, 2:] != path[:, :-2])
        skip_penalty[:, 2:] = (~allowed).astype(work) * log_zero

        # alpha[t, b, s]: log-probability of all prefixes that are in state s at
        # time t, emission at t included. Two log-zero columns pad the front.
        alpha = xp.empty((n_time, batch, n_state + 2), dtype=work)
        alpha[:, :, :2] = log_zero
        alpha[0, :, 2:] = log_zero
        alpha[0, :, 2:4] = log_y_path[0, :, :2]
        for step in range(1, n_time):
            prev = alpha[step - 1]
            new = _logsumexp3(xp, prev[:, 2:], prev[:, 1:-1], prev[:, :-2] + skip_penalty)
            new += log_y_path[step]
            alpha[step, :, 2:] = new
        alpha = alpha[:, :, 2:]

        last = alpha[input_length - 1, rows]  # (B, S), each at its own final time
        end = 2 * label_length
        has_labels = label_length > 0
        log_p = xp.logaddexp(last[rows, end],
                             xp.where(has_labels, last[rows, end - has_labels], log_zero))
        feasible = log_p > work(_LOG_ZERO / 2)
        loss = xp.where(feasible, -log_p, work(numpy.inf))
        if self.reduce == 'mean':
            loss = loss.mean()

        self._state = (input_length, label_length, path, log_y, log_y_path, skip_penalty,
                       alpha, log_p, feasible)
        return force_array(loss.astype(x.dtype, copy=False)),

    def _residual(self) -> Any:
        """``softmax(x) - posterior``: the gradient of each loss with respect to ``x``.

        It consumes (and overwrites) the arrays that forward kept.
        """
        (input_length, label_length, path, log_y, log_y_path, skip_penalty, alpha, log_p,
         feasible) = self._state
        self._state = None
        xp = backend.get_array_module(log_y)
        n_time, batch, n_state = alpha.shape
        work = alpha.dtype.type
        log_zero = work(_LOG_ZERO)
        states = xp.arange(n_state)[None, :]
        end = (2 * label_length)[:, None]
        final = (states == end) | ((states == end - 1) & (label_length[:, None] > 0))
        # beta[t, b, s]: log-probability of all suffixes after time t given state s at t.
        beta_init = (~final).astype(alpha.dtype) * log_zero
        beta = xp.empty_like(alpha)
        beta[n_time - 1] = beta_init
        following = xp.full((batch, n_state + 2), log_zero, dtype=alpha.dtype)
        skip_into = xp.full((batch, n_state), log_zero, dtype=alpha.dtype)
        skip_into[:, :-2] = skip_penalty[:, 2:]
        for step in range(n_time - 2, -1, -1):
            following[:, :n_state] = beta[step + 1] + log_y_path[step + 1]
            new = _logsumexp3(xp, following[:, :n_state], following[:, 1:-1],
                              following[:, 2:] + skip_into)
            active = (step < input_length - 1)[:, None]
            beta[step] = xp.where(active, new, beta_init)

        # Posterior occupation of each state; below 1 everywhere, so exp never
        # overflows (log_p of an infeasible sequence is replaced by 0).
        log_gamma = alpha
        log_gamma += beta
        log_gamma -= xp.where(feasible, log_p, work(0))[None, :, None]
        gamma = xp.exp(log_gamma, out=log_gamma)
        occupancy = xp.zeros_like(log_y)
        rows = xp.arange(batch)[:, None]
        xp.add.at(occupancy, (slice(None), rows, path), gamma)
        residual = xp.exp(log_y, out=log_y)
        residual -= occupancy
        inside = (xp.arange(n_time)[:, None] < input_length[None, :]) & feasible[None, :]
        residual *= inside[:, :, None]
        return residual

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        ret: list[Any] = [None] * len(indexes)
        if indexes[-1] == 3:
            if self._gradient is None:
                self._gradient = self._residual()
            x, = self.get_retained_inputs()
            ret[-1] = ConnectionistTemporalClassificationGrad(
                self._gradient, self.reduce).apply((x, gy))[0]
        return tuple(ret)


class ConnectionistTemporalClassificationGrad(FunctionNode):
    """``gx = residual * gy`` for CTC (``gy / B`` with ``reduce='mean'``).

    The residual depends on ``x`` through the whole recursion; as in Chainer,
    CTC is differentiable only once, so the gradient with respect to ``x``
    raises. The gradient with respect to ``gy`` is exact.
    """

    def __init__(self, residual: Any, reduce: str) -> None:
        self.residual = residual
        self.reduce = reduce

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = inputs
        gy = gy.astype(self.residual.dtype, copy=False)
        if self.reduce == 'mean':
            gx = self.residual * (gy * gy.dtype.type(1.0 / self.residual.shape[1]))
        else:
            gx = self.residual * gy[None, :, None]
        return force_array(gx.astype(x.dtype, copy=False)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        if 0 in indexes:
            raise NotImplementedError(
                f'{_NAME} is differentiable only once with respect to x (as in Chainer): '
                'its gradient cannot be differentiated again')
        ggx, = grad_outputs
        residual = self.residual.astype(ggx.dtype, copy=False)
        if self.reduce == 'mean':
            return _sum(ggx * residual) * (1.0 / residual.shape[1]),
        return _sum(ggx * residual, axis=(0, 2)),


def connectionist_temporal_classification(
        x: Sequence[Any], t: Any, blank_symbol: int, input_length: Any = None,
        label_length: Any = None, reduce: str = 'mean') -> Variable:
    """Connectionist Temporal Classification loss function.

    CTC (Graves et al., *Connectionist Temporal Classification: Labelling
    Unsegmented Sequence Data with Recurrent Neural Networks*, 2006) is the
    negative log-likelihood of a label sequence given per-frame scores when
    the alignment between frames and labels is unknown: it sums the
    probabilities of every frame-level path that reduces to the labels after
    merging repeated symbols and then removing blanks.

    ``x`` holds unnormalized scores: the softmax over the labels is applied
    inside (do not apply it yourself; apply it to the scores before decoding).

    Args:
        x: A list or tuple of ``T`` Variables or arrays of shape ``(B, V)``,
            the scores of the ``V`` labels (the blank included) at each time.
        t: The label sequences, an integer array of shape ``(B, M)``; each
            label is in ``[0, V)``. Entries beyond a sequence's
            ``label_length`` are padding and are not used.
        blank_symbol: The index of the blank label, in ``[0, V)``.
        input_length: The number of valid frames of each sequence, an integer
            array of shape ``(B,)`` with values in ``[1, T]``; None: all ``T``.
        label_length: The number of valid labels of each sequence, an integer
            array of shape ``(B,)`` with values in ``[0, M]``; None: all ``M``.
        reduce: ``'mean'`` (the mean over the batch) or ``'no'`` (one loss
            per sequence, shape ``(B,)``).

    Returns:
        Variable: The loss. A sequence that no path can produce (it needs
        more frames than it has) gets an infinite loss and no gradient.

    Raises:
        TypeError: If ``x`` is not a list or tuple, or ``blank_symbol`` is
            not a non-negative int.
        ValueError: If ``reduce`` is neither of the two, or a label, length
            or ``blank_symbol`` is out of range.
        InvalidType: If the shapes or dtypes do not fit together (the
            message gives all arrays involved).

    .. note::
        This function is differentiable only with respect to ``x``, and only
        once, as in Chainer.

    .. admonition:: Example

        >>> x = [np.zeros((1, 3), dtype=np.float32)] * 2
        >>> t = np.array([[1]], dtype=np.int32)
        >>> loss = F.connectionist_temporal_classification(x, t, 0)
        >>> round(float(loss.array), 4)  # 3 of the 9 paths give [1]: -log(3 / 9)
        1.0986
    """
    if not isinstance(x, Sequence):
        raise TypeError(f'{_NAME}: x must be a list or tuple of Variables or arrays of shape '
                        f'(B, V), one per time step; got {type(x).__name__}')
    if len(x) == 0:
        raise ValueError(f'{_NAME}: x must hold at least one time step; got an empty '
                         f'{type(x).__name__}')
    first = _structured.array_of(_arguments.array(_NAME, 'x[0]', x[0]))
    for i, x_i in enumerate(x):
        x_a = _structured.array_of(_arguments.array(_NAME, f'x[{i}]', x_i))
        if x_a.ndim != 2 or x_a.shape != first.shape or x_a.dtype != first.dtype:
            raise _structured.fail(_NAME, 'every x[i] has the shape (B, V) and dtype of x[0]',
                                   **{'x[0]': first, f'x[{i}]': x_a})
    t_a = _structured.array_of(_arguments.array(_NAME, 't', t))
    if t_a.dtype.kind != 'i' or t_a.ndim != 2 or t_a.shape[0] != first.shape[0]:
        raise _structured.fail(_NAME, 't is an integer array of shape (B, M) with '
                               'B == x[0].shape[0]', **{'x[0]': first, 't': t_a})
    xp = backend.get_array_module(first)
    if input_length is None:
        input_length = xp.full(first.shape[0], len(x), dtype=numpy.int32)
    if label_length is None:
        label_length = xp.full(first.shape[0], t_a.shape[1], dtype=numpy.int32)
    func = ConnectionistTemporalClassification(blank_symbol, reduce)
    return func.apply((input_length, label_length, t, stack(list(x))))[0]
