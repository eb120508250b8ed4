"""Helpers for densities that are only defined on part of the real line.

A log density computed at a point outside the support would take the
logarithm of a negative number (a NaN and a warning) on the way to the
``-inf`` that the result should hold there. These helpers move such points
inside the support first and then overwrite their results.
"""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions.array.cast import cast
from catena.functions.array.where import where
from catena.functions.math.exponential import log
from catena.functions.math.lgamma import lgamma
from catena.utils import force_array
from catena.variable import Variable, as_array


def as_value(x: Any, like: Variable) -> Variable:
    """``x`` as a Variable of the dtype (and array module) of the parameter ``like``.

    A Variable of another floating dtype goes through ``cast``; arrays,
    scalars and Variables of other kinds (integer counts) become constant
    Variables that carry no gradient.
    """
    dtype = like.dtype
    if isinstance(x, Variable):
        if x.dtype == dtype:
            return x
        if x.dtype.kind == 'f':
            return cast(x, dtype)
        x = x.array
    if not hasattr(x, 'dtype'):  # a Python scalar or a list: make it where the parameters live
        x = like.xp.asarray(x)
    xp = backend.get_array_module(x)
    return Variable(force_array(xp.asarray(x).astype(dtype, copy=False)), requires_grad=False)


def replace_outside(x: Any, inside: Any, fill: Any) -> Any:
    """``x`` where ``inside`` holds and ``fill`` (a scalar or array) elsewhere."""
    if bool(inside.all()):
        return x
    xp = backend.get_array_module(inside)
    dtype = as_array(x).dtype
    return where(inside, x, xp.asarray(fill).astype(dtype, copy=False))


def set_outside(y: Variable, inside: Any, value: float) -> Variable:
    """``y`` where ``inside`` holds and the constant ``value`` elsewhere."""
    if bool(inside.all()):
        return y
    xp = y.xp
    return where(inside, y, xp.full((), value, y.dtype))


def is_integer(x: Any) -> Any:
    """Whether each element of the array ``x`` is a whole number."""
    xp = backend.get_array_module(x)
    return xp.floor(x) == x


def lbeta(a: Any, b: Any) -> Variable:
    """:math:`\\log B(a, b) = \\log\\Gamma(a) + \\log\\Gamma(b) - \\log\\Gamma(a + b)`."""
    return lgamma(a) + lgamma(b) - lgamma(a + b)


def mul_log(c: Any, x: Any) -> Variable:
    """``c * log(x)`` for ``x >= 0``, with its limit at ``x = 0``.

    The limit is ``0`` where ``c`` is 0 (not the ``0 * -inf = nan`` of the
    plain product), ``-inf`` where ``c > 0`` and ``inf`` where ``c < 0``.
    """
    zero = as_array(x) == 0
    if not bool(zero.any()):
        return c * log(x)
    c_array = as_array(c)
    xp = backend.get_array_module(c_array)
    safe = replace_outside(x, ~zero, 1.0)
    product = c * log(safe)
    limit = xp.where(c_array > 0, -xp.inf, xp.where(c_array < 0, xp.inf, 0.0))
    return where(zero, limit.astype(product.dtype, copy=False), product)
