"""``gumbel_softmax``: a differentiable relaxation of sampling a category."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions import _arguments
from catena.functions.activation.softmax import softmax
from catena.variable import Variable, as_variable


def gumbel_softmax(log_p: Any, tau: float = 0.1, axis: int = 1) -> Variable:
    """Gumbel-Softmax sampling.

    Adds Gumbel noise :math:`g` to the log probabilities and returns
    :math:`\\mathrm{softmax}((\\log p + g) / \\tau)` along ``axis``
    (`Jang et al., 2016 <https://arxiv.org/abs/1611.01144>`_). As ``tau``
    goes to 0 the result approaches a one-hot sample of the categorical
    distribution ``p``. It samples in training and in test mode alike; the
    draws come from the array module of ``log_p`` (``numpy.random`` on the CPU).

    Args:
        log_p: A Variable or array of floating point type: the (unnormalized)
            log probabilities.
        tau: The temperature, positive.
        axis: The axis of the categories.

    Returns:
        Variable: The relaxed sample, of the shape of ``log_p``. A 0-d
        ``log_p`` (a single category) gives 1.

    Raises:
        ValueError: If ``tau`` is not positive or ``log_p`` is not of a
            floating point type.

    .. admonition:: Example

        >>> np.random.seed(0)
        >>> log_p = np.log(np.array([[0.1, 0.2, 0.7]], dtype=np.float32))
        >>> F.gumbel_softmax(log_p, tau=1e-3).array
        array([[0., 0., 1.]], dtype=float32)
    """
    if not tau > 0:
        raise ValueError(f'gumbel_softmax: tau must be positive; got {tau!r}')
    log_p = as_variable(_arguments.array('gumbel_softmax', 'log_p', log_p))
    dtype = log_p.dtype
    if dtype.kind != 'f':
        raise ValueError(f'gumbel_softmax: log_p must be of a floating point type; got {dtype}')
    xp = backend.get_array_module(log_p)
    if log_p.ndim < 1:
        return Variable(xp.ones((), dtype=dtype))
    noise = xp.random.gumbel(size=log_p.shape).astype(dtype, copy=False)
    return softmax((log_p + noise) / tau, axis=axis)
