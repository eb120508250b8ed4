"""``black_out``: the BlackOut loss, a softmax over the true and a few sampled classes."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions import _arguments
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.reshape import reshape
from catena.functions.connection.embed_id import embed_id
from catena.functions.loss import _structured
from catena.functions.math.average import average
from catena.functions.math.exponential import exp
from catena.functions.math.logarithm_1p import log1p
from catena.functions.math.logsumexp import logsumexp
from catena.functions.math.matmul import matmul
from catena.functions.math.sum import sum as _sum
from catena.variable import Variable


def _check(x: Any, t: Any, W: Any, samples: Any) -> None:
    named = (('x', x), ('t', t), ('W', W), ('samples', samples))
    x_a, t_a, w_a, s_a = (_structured.array_of(_arguments.array('black_out', name, a))
                          for name, a in named)
    arrays = {'x': x_a, 't': t_a, 'W': w_a, 'samples': s_a}
    if x_a.ndim != 2 or x_a.dtype.kind != 'f':
        raise _structured.fail('black_out', 'x is a floating point matrix (N, D)', x=x_a)
    if w_a.ndim != 2 or w_a.dtype != x_a.dtype or w_a.shape[1] != x_a.shape[1]:
        raise _structured.fail('black_out', 'W.shape == (V, x.shape[1]) and W.dtype == x.dtype',
                               x=x_a, W=w_a)
    if t_a.dtype.kind != 'i' or t_a.shape != x_a.shape[:1]:
        raise _structured.fail('black_out', 't is an integer array of shape (x.shape[0],)',
                               x=x_a, t=t_a)
    if s_a.dtype.kind != 'i' or s_a.ndim != 2 or s_a.shape[0] != x_a.shape[0]:
        raise _structured.fail(
            'black_out', 'samples is an integer array of shape (x.shape[0], S)', **arrays)
    n_classes = w_a.shape[0]
    context = f'W.shape={tuple(w_a.shape)}'
    _structured.check_range('black_out', 't', t_a, n_classes, context)
    _structured.check_range('black_out', 'samples', s_a, n_classes, context)


def black_out(x: Any, t: Any, W: Any, samples: Any, reduce: str = 'mean') -> Variable:
    """BlackOut loss function (Ji et al., *BlackOut: Speeding up Recurrent
    Neural Network Language Models with Very Large Vocabularies*, 2016).

    Instead of normalizing over all ``V`` classes, a softmax is taken over
    the true class ``t`` and the sampled negatives ``S``:
    :math:`p(y) = \\exp(w_y^\\top x) / \\sum_{s \\in \\{t\\} \\cup S} \\exp(w_s^\\top x)`.
    The loss of one example is

    .. math::

        -\\log p(t) - \\sum_{s \\in S} \\log (1 - p(s)).

    Args:
        x: Input vectors, a Variable or array of shape ``(N, D)``.
        t: The true labels, an integer array of shape ``(N,)`` with values
            in ``[0, V)``.
        W: The weight matrix of shape ``(V, D)``, the dtype of ``x``.
        samples: The negative samples, an integer array of shape ``(N, S)``
            with values in ``[0, V)``.
        reduce: ``'mean'`` (the mean over the batch) or ``'no'`` (one loss
            per example, shape ``(N,)``).

    Returns:
        Variable: The loss.

    Raises:
        ValueError: If ``reduce`` is neither of the two, or a label or
            sample is out of range.
        InvalidType: If the shapes or dtypes do not fit together (the
            message gives all of them).

    .. admonition:: Example

        >>> x = np.array([[1.0, 0.0]], dtype=np.float32)
        >>> W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], dtype=np.float32)
        >>> t = np.array([0], dtype=np.int32)
        >>> samples = np.array([[1, 2]], dtype=np.int32)
        >>> F.black_out(x, t, W, samples, reduce='no').array.round(4)
        array([0.7826], dtype=float32)
    """
    _structured.check_reduce('black_out', reduce, ('mean', 'no'))
    _check(x, t, W, samples)
    t_a = _structured.array_of(t)
    s_a = _structured.array_of(samples)
    xp = backend.get_array_module(t_a)
    batch_size, n_samples = s_a.shape
    # Row n holds the true class, then the samples: one lookup and one product.
    ids = xp.concatenate((t_a[:, None].astype(s_a.dtype, copy=False), s_a), axis=1)
    scores = matmul(embed_id(ids, W), expand_dims(x, 2))
    scores = reshape(scores, (batch_size, n_samples + 1))
    log_z = logsumexp(scores, axis=1)
    loss = log_z - scores[:, 0]
    if n_samples:
        log_p_negative = scores[:, 1:] - reshape(log_z, (batch_size, 1))
        loss = loss - _sum(log1p(-exp(log_p_negative)), axis=1)
    if reduce == 'mean':
        return average(loss)
    return loss
