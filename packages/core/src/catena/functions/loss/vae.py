"""The losses of variational auto-encoders: ``bernoulli_nll``, ``gaussian_kl_divergence``
and ``gaussian_nll`` (compositions of differentiable functions)."""

from __future__ import annotations

import math
from typing import Any

from catena.functions.activation.softplus import softplus
from catena.functions.loss import _argcheck
from catena.functions.math.exponential import exp
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable

_LOG_2PI = math.log(2.0 * math.pi)
_REDUCE = ('sum', 'mean', 'no')


def _check(function: str, reduce: str, **arrays: Any) -> None:
    """Checks ``reduce`` and that the arrays are floating point of one shape and dtype."""
    _argcheck.check_reduce(function, reduce, _REDUCE)
    names = tuple(arrays)
    values = [_argcheck.array_of(a) for a in arrays.values()]
    for name, value in zip(names, values):
        if not hasattr(value, 'shape') or not hasattr(value, 'dtype'):
            raise TypeError(f'{function}: {name} must be a Variable or an array; '
                            f'got {type(value).__name__}')
    try:
        _argcheck.expect_same(names, values)
    except type_check.InvalidType as error:
        raise type_check.InvalidType(
            error.expect, error.actual,
            f'{function}: the arguments must be floating point arrays of one shape and '
            f'dtype\nExpect: {error.expect}\nActual: {error.actual}\n') from None


def _reduced(loss: Variable, reduce: str) -> Variable:
    if reduce == 'sum':
        return _sum(loss)
    if reduce == 'mean':
        return _sum(loss) * (1.0 / max(loss.size, 1))
    return loss


def bernoulli_nll(x: Any, y: Any, reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``.

    The loss of an element is
    :math:`-x \\log p - (1 - x) \\log(1 - p)` with :math:`p = \\sigma(y)`,
    computed as :math:`\\mathrm{softplus}(y) - x y`.

    Args:
        x: The data, of floating point type (usually in ``[0, 1]``).
        y: The logits of the Bernoulli means, of ``x``'s shape and dtype.
        reduce: ``'sum'`` for the sum over all elements, ``'mean'`` for
            their mean, ``'no'`` for the loss of every element.

    Returns:
        Variable: The negative log-likelihood.

    Raises:
        ValueError: If ``reduce`` is unknown.

    .. admonition:: Example

        >>> x = np.array([1.0, 0.0], dtype=np.float32)
        >>> F.bernoulli_nll(x, np.zeros(2, np.float32), reduce='no').array.round(4)
        array([0.6931, 0.6931], dtype=float32)
    """
    _check('bernoulli_nll', reduce, x=x, y=y)
    return _reduced(softplus(y) - x * y, reduce)


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = 'sum') -> Variable:
    """KL divergence of diagonal Gaussians :math:`N(\\mu, \\sigma^2)` from :math:`N(0, 1)`.

    The divergence of an element is
    :math:`\\frac{1}{2} (\\mu^2 + \\sigma^2 - \\log \\sigma^2 - 1)`.

    Args:
        mean: The means :math:`\\mu`, of floating point type.
        ln_var: The log-variances :math:`\\log \\sigma^2`, of ``mean``'s shape
            and dtype.
        reduce: ``'sum'`` for the sum over all elements, ``'mean'`` for
            their mean, ``'no'`` for the divergence of every element.

    Returns:
        Variable: The KL divergence.

    Raises:
        ValueError: If ``reduce`` is unknown.

    .. admonition:: Example

        >>> mean = np.array([0.0, 1.0], dtype=np.float32)
        >>> F.gaussian_kl_divergence(mean, np.zeros(2, np.float32), reduce='no').array
        array([0. , 0.5], dtype=float32)
    """
    _check('gaussian_kl_divergence', reduce, mean=mean, ln_var=ln_var)
    loss = (mean * mean + exp(ln_var) - ln_var - 1.0) * 0.5
    return _reduced(loss, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under diagonal Gaussians :math:`N(\\mu, \\sigma^2)`.

    The loss of an element is
    :math:`\\frac{1}{2} (\\log 2\\pi + \\log \\sigma^2 + (x - \\mu)^2 / \\sigma^2)`.

    Args:
        x: The data, of floating point type.
        mean: The means :math:`\\mu`, of ``x``'s shape and dtype.
        ln_var: The log-variances :math:`\\log \\sigma^2`, of ``x``'s shape
            and dtype.
        reduce: ``'sum'`` for the sum over all elements, ``'mean'`` for
            their mean, ``'no'`` for the loss of every element.

    Returns:
        Variable: The negative log-likelihood.

    Raises:
        ValueError: If ``reduce`` is unknown.

    .. admonition:: Example

        >>> x = np.array([0.0, 1.0], dtype=np.float32)
        >>> zeros = np.zeros(2, np.float32)
        >>> F.gaussian_nll(x, zeros, zeros, reduce='no').array.round(4)
        array([0.9189, 1.4189], dtype=float32)
    """
    _check('gaussian_nll', reduce, x=x, mean=mean, ln_var=ln_var)
    diff = x - mean
    loss = (ln_var + _LOG_2PI + diff * diff * exp(-ln_var)) * 0.5
    return _reduced(loss, reduce)
