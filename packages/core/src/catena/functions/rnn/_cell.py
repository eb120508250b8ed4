"""Shared math of the gated cells (lstm, slstm, tree_lstm).

Each of them computes, from activated gates,

    c = sum_j a_j i_j + sum_k f_k c_k,    h = o tanh(c),

with ``a_j = tanh(A_j)`` and sigmoid ``i_j``, ``f_k``, ``o`` of their
pre-activations. Their gradient nodes share the second-order math here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from catena import backend
from catena.functions.activation.tanh import tanh as _tanh
from catena.functions.array.split_axis import split_axis


def interleaved_shape(x: Any, n_units: int) -> tuple[int, ...]:
    """The shape ``(B, n_units, 4, ...)`` that exposes the gates of ``x`` (lstm, slstm).

    The four gates of a unit are adjacent: ``x[:, 4 * u + k]`` is gate ``k``
    of unit ``u``.
    """
    return (x.shape[0], n_units, 4) + tuple(x.shape[2:])


def split(x: Any, indices_or_sections: Any, axis: int) -> tuple[Any, ...]:
    """:func:`~catena.functions.split_axis`, typed as always returning a tuple."""
    return cast('tuple[Any, ...]', split_axis(x, indices_or_sections, axis))


def sigmoid(xp: Any, x: Any) -> Any:
    """Returns the sigmoid of the array ``x`` as a new array."""
    # 1 / (1 + exp(-x)) == (1 + tanh(x / 2)) / 2, which never overflows.
    half = x.dtype.type(0.5)
    y = xp.multiply(x, half)
    xp.tanh(y, out=y)
    y *= half
    y += half
    return y


def sigmoid_grad(xp: Any, s: Any) -> Any:
    """Returns ``s * (1 - s)``, the derivative of the sigmoid from its value ``s``."""
    d = xp.subtract(s.dtype.type(1), s)
    d *= s
    return d


def tanh_grad(xp: Any, t: Any) -> Any:
    """Returns ``1 - t * t``, the derivative of tanh from its value ``t``."""
    d = xp.multiply(t, t)
    xp.subtract(t.dtype.type(1), d, out=d)
    return d


def zeros_like_or(g: Any, like: Any) -> Any:
    """Returns the array ``g``, or zeros shaped like ``like`` when ``g`` is None."""
    if g is not None:
        return g
    return backend.get_array_module(like).zeros(like.shape, like.dtype)


def _sum(terms: list[Any]) -> Any:
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def cell_grad_grad(a: Sequence[Any], i: Sequence[Any], f: Sequence[Any], cp: Sequence[Any],
                   o: Any, gc: Any, gh: Any, gga: Sequence[Any], ggi: Sequence[Any],
                   ggf: Sequence[Any], ggcp: Sequence[Any], ggo: Any
                   ) -> tuple[list[Any], list[Any], list[Any], list[Any], Any, Any, Any]:
    """The gradient of the cell's first-order gradient (Variables in, Variables out).

    The first-order gradient of the cell is, with ``co = tanh(c)`` and
    ``gct = gc + gh o (1 - co^2)``::

        gA_j = gct i_j (1 - a_j^2)     gI_j = gct a_j i_j (1 - i_j)
        gF_k = gct c_k f_k (1 - f_k)   gc_k = gct f_k
        gO = gh co o (1 - o)

    Given the gradients ``gg*`` of those outputs, this returns the gradients
    of ``sum(gg * g)`` with respect to the pre-activations ``A_j, I_j, F_k,
    O``, the cell states ``c_k`` and the upstream gradients ``gc`` and ``gh``
    (everything through ``c`` and ``co`` included). All arguments are
    Variables built from the node's inputs, so the result is differentiable
    again.

    Args:
        a, i: The activated cell inputs and input gates (one per input pair).
        f, cp: The activated forget gates and the previous cell states.
        o: The activated output gate.
        gc, gh: The gradients of ``c`` and ``h``.
        gga, ggi, ggf, ggcp, ggo: The gradients of ``gA_j``, ``gI_j``,
            ``gF_k``, ``gc_k`` and ``gO``.

    Returns:
        tuple: ``(gA, gI, gF, gcp, gO, g_gc, g_gh)``, lists for the first four.
    """
    c = _sum([aj * ij for aj, ij in zip(a, i)] + [fk * ck for fk, ck in zip(f, cp)])
    co = _tanh(c)
    dco = 1 - co * co
    do = o * (1 - o)
    da = [1 - aj * aj for aj in a]
    di = [ij * (1 - ij) for ij in i]
    df = [fk * (1 - fk) for fk in f]
    gct = gc + gh * o * dco
    s = _sum([gga[j] * i[j] * da[j] + ggi[j] * a[j] * di[j] for j in range(len(a))]
             + [ggf[k] * cp[k] * df[k] + ggcp[k] * f[k] for k in range(len(f))])
    g_c = gh * dco * (ggo * do - 2 * s * o * co)
    g_a = [da[j] * (gct * (ggi[j] * di[j] - 2 * a[j] * i[j] * gga[j]) + g_c * i[j])
           for j in range(len(a))]
    g_i = [di[j] * (gct * (gga[j] * da[j] + ggi[j] * a[j] * (1 - 2 * i[j])) + g_c * a[j])
           for j in range(len(a))]
    g_f = [df[k] * (gct * (ggf[k] * cp[k] * (1 - 2 * f[k]) + ggcp[k]) + g_c * cp[k])
           for k in range(len(f))]
    g_cp = [gct * ggf[k] * df[k] + g_c * f[k] for k in range(len(f))]
    g_o = do * gh * (dco * s + ggo * co * (1 - 2 * o))
    g_gh = o * dco * s + ggo * co * do
    return g_a, g_i, g_f, g_cp, g_o, s, g_gh
