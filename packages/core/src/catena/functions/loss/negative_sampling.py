"""``negative_sampling``: the word2vec loss with sampled negative classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.reshape import reshape
from catena.functions.connection.embed_id import EmbedIDGrad, embed_id
from catena.functions.loss import _structured
from catena.functions.math.matmul import matmul
from catena.utils import force_array, type_check
from catena.variable import Variable

_NAME = 'negative_sampling'


class NegativeSamplingFunction(FunctionNode):
    """Sum over the true class and the samples of ``softplus(∓ w_kᵀ x)``.

    The samples are drawn in forward; after it, ``samples`` holds them
    (``(N, sample_size + 1)``, the first column being ``t``).
    """

    ignore_label = -1
    samples: Any = None

    def __init__(self, sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                 reduce: str = 'sum') -> None:
        _structured.check_reduce(_NAME, reduce, ('sum', 'no'))
        if (isinstance(sample_size, bool)
                or not isinstance(sample_size, (int, numpy.integer)) or sample_size < 0):
            raise ValueError(f'{_NAME}: sample_size must be a non-negative int; '
                             f'got {sample_size!r}')
        if not callable(sampler):
            raise TypeError(f'{_NAME}: sampler must be a callable that takes a shape and '
                            f'returns an integer array; got {type(sampler).__name__}')
        self.sampler = sampler
        self.sample_size = int(sample_size)
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't', 'W'))
        x, t, W = (_structured.info(a) for a in in_types)
        if x.dtype.kind != 'f' or len(x.shape) != 2:
            raise _structured.fail(None, 'x is a floating point matrix (N, D)', x=x)
        if t.dtype.kind != 'i' or tuple(t.shape) != tuple(x.shape[:1]):
            raise _structured.fail(None, 't is an integer array of shape (x.shape[0],)',
                                   x=x, t=t)
        if W.dtype != x.dtype or len(W.shape) != 2 or W.shape[1] != x.shape[1]:
            raise _structured.fail(None, 'W.shape == (V, x.shape[1]) and W.dtype == x.dtype',
                                   x=x, W=W)

    def _make_samples(self, t: Any, n_classes: int) -> Any:
        xp = backend.get_array_module(t)
        shape = (t.shape[0], self.sample_size + 1)
        drawn = self.sampler(shape)
        if getattr(drawn, 'dtype', numpy.dtype('f')).kind not in 'iu' or drawn.shape != shape:
            raise ValueError(
                f'{_NAME}: the sampler must return an integer array of shape {shape} '
                f'(len(t), sample_size + 1); got '
                f'{getattr(drawn, "shape", None)} of dtype {getattr(drawn, "dtype", None)} '
                f'({type(drawn).__name__})')
        samples = xp.array(drawn, copy=True)
        context = f'W.shape[0]={n_classes}'
        _structured.check_range(_NAME, 'samples', samples[:, 1:], n_classes, context)
        _structured.check_range(_NAME, 't', t, n_classes, context, self.ignore_label)
        samples[:, 0] = t
        return samples

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 2))
        x, t, W = inputs
        xp = backend.get_array_module(x)
        samples = self._make_samples(t, W.shape[0])
        kept = t != self.ignore_label
        # Ignored rows look up class 0 and are masked out of the loss.
        self._ids = ids = samples * kept[:, None]
        self._kept = kept.astype(x.dtype)
        wx = force_array(xp.matmul(W[ids], x[:, :, None])[..., 0])
        wx[:, 0] *= -1
        loss = force_array(xp.logaddexp(wx, x.dtype.type(0)).sum(axis=1))
        loss *= self._kept
        if self.reduce == 'sum':
            loss = force_array(loss.sum())
        self.samples = samples
        return loss,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        batch_size, n_ids = self._ids.shape
        xp = backend.get_array_module(x)
        sign = xp.ones(n_ids, dtype=x.dtype)
        sign[0] = -1
        w = embed_id(self._ids, W)
        wx = reshape(matmul(w, expand_dims(x, 2)), (batch_size, n_ids))
        # d softplus(s * wx) / d wx = s * sigmoid(s * wx), for the sign s of the column.
        g = sigmoid(wx * sign) * (sign * self._kept[:, None])
        g = g * (gy if self.reduce == 'sum' else reshape(gy, (batch_size, 1)))
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(reshape(matmul(expand_dims(g, 1), w), x.shape))
            elif i == 1:
                ret.append(None)
            else:
                rows = expand_dims(g, 2) * expand_dims(x, 1)
                ret.append(EmbedIDGrad(W.shape).apply((self._ids, rows))[0])
        return tuple(ret)


def negative_sampling(x: Any, t: Any, W: Any, sampler: Callable[[tuple[int, int]], Any],
                      sample_size: int, reduce: str = 'sum', *,
                      return_samples: bool = False) -> Variable | tuple[Variable, Any]:
    """Negative sampling loss function (Mikolov et al., 2013).

    For an input vector :math:`x`, its true class :math:`p` and ``k``
    negative classes :math:`N` drawn by ``sampler``, the loss is

    .. math::

        f(x, p) = -\\log \\sigma(x^\\top w_p) - \\sum_{n \\in N} \\log \\sigma(-x^\\top w_n),

    a sampled approximation of
    :math:`-\\log \\sigma(x^\\top w_p) - k E_{i \\sim P}[\\log \\sigma(-x^\\top w_i)]`,
    where :math:`w_i` is row ``i`` of ``W`` and :math:`\\sigma` is the
    sigmoid. ``sampler`` usually draws from unigram counts raised to a power
    (e.g. :class:`catena.utils.WalkerAlias`). Rows whose label is ``-1``
    are ignored: their loss is zero and they pass no gradient.

    Args:
        x: Input vectors, a Variable or array of shape ``(N, D)``.
        t: The true labels, an integer array of shape ``(N,)`` with values
            in ``[0, V)`` or ``-1``.
        W: The weight matrix of shape ``(V, D)``, the dtype of ``x``.
        sampler: A callable that takes a shape and returns an integer array
            of that shape, each element a class drawn from the negative
            distribution.
        sample_size: The number ``k`` of negative samples per example.
        reduce: ``'sum'`` (the sum over the batch) or ``'no'`` (one loss per
            example, shape ``(N,)``).
        return_samples: Also return the samples: an integer array of shape
            ``(N, sample_size + 1)`` whose first column is ``t`` and whose
            other columns came from ``sampler``.

    Returns:
        Variable or tuple: The loss, or ``(loss, samples)`` if
        ``return_samples`` is True.

    Raises:
        ValueError: If ``reduce`` is neither of the two, a label or sample is
            out of range, or the sampler returns an array of another shape.
        InvalidType: If the shapes or dtypes of ``x``, ``t`` and ``W`` do not
            fit together (the message gives them).

    .. admonition:: Example

        >>> x = np.array([[1.0, 0.0]], dtype=np.float32)
        >>> W = np.array([[2.0, 0.0], [-1.0, 1.0]], dtype=np.float32)
        >>> sampler = lambda shape: np.ones(shape, dtype=np.int32)
        >>> loss = F.negative_sampling(x, np.array([0], np.int32), W, sampler, 1)
        >>> round(float(loss.array), 4)
        0.4402
    """
    func = NegativeSamplingFunction(sampler, sample_size, reduce)
    loss = func.apply((x, t, W))[0]
    if return_samples:
        return loss, func.samples
    return loss
