"""``slstm``: the S-LSTM unit, an LSTM that merges two children (a binary tree node)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.array.reshape import reshape
from catena.functions.array.separate import separate
from catena.functions.array.stack import stack
from catena.functions.rnn import _cell
from catena.utils import type_check
from catena.variable import Variable


def _activate(xp: Any, x: Any, n_units: int) -> tuple[Any, Any, Any]:
    """Returns ``tanh(a)``, the sigmoid of ``x`` in the gate layout, and that layout."""
    r = x.reshape(_cell.interleaved_shape(x, n_units))
    return xp.tanh(r[:, :, 0]), _cell.sigmoid(xp, r), r


def _forward_arrays(xp: Any, c1: Any, c2: Any, x1: Any, x2: Any) -> tuple[Any, ...]:
    """Returns ``(c, tanh(a1), sig1, tanh(a2), sig2, o, tanh(c))``."""
    n_units = c1.shape[1]
    a1, s1, r1 = _activate(xp, x1, n_units)
    a2, s2, r2 = _activate(xp, x2, n_units)
    o = _cell.sigmoid(xp, r1[:, :, 3] + r2[:, :, 3])
    c = a1 * s1[:, :, 1]
    c += a2 * s2[:, :, 1]
    c += s1[:, :, 2] * c1
    c += s2[:, :, 2] * c2
    return c, a1, s1, a2, s2, o, xp.tanh(c)


class SLSTM(FunctionNode):
    """The S-LSTM unit: ``(c_prev1, c_prev2, x1, x2) -> (c, h)``; see :func:`slstm`."""

    # The activations of the last forward pass, reused by the gradient node (a
    # kernel that replaces forward may leave it None: the gradient recomputes).
    _cache: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('c_prev1', 'c_prev2', 'x1', 'x2'))
        c1_type, c2_type, x1_type, x2_type = in_types
        type_check.expect(
            c1_type.dtype.kind == 'f',
            c2_type.dtype == c1_type.dtype,
            x1_type.dtype == c1_type.dtype,
            x2_type.dtype == c1_type.dtype,
            c1_type.ndim >= 2,
            c2_type.ndim == c1_type.ndim,
            x1_type.ndim == c1_type.ndim,
            x2_type.ndim == c1_type.ndim,
            x1_type.shape[0] == c1_type.shape[0],
            x1_type.shape[1] == 4 * c1_type.shape[1],
        )
        for axis in range(type_check.eval(c1_type.ndim)):
            type_check.expect(c2_type.shape[axis] == c1_type.shape[axis],
                              x2_type.shape[axis] == x1_type.shape[axis])
            if axis >= 2:
                type_check.expect(x1_type.shape[axis] == c1_type.shape[axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        xp = backend.get_array_module(inputs[0])
        c, *cache = _forward_arrays(xp, *inputs)
        self._cache = tuple(cache)
        o, co = cache[-2], cache[-1]
        return c, xp.multiply(o, co)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        c1, c2, x1, x2 = self.get_retained_inputs()
        gc, gh = grad_outputs
        gc = _cell.zeros_like_or(gc, c1.array)
        gh = _cell.zeros_like_or(gh, c1.array)
        return SLSTMGrad(self._cache).apply((c1, c2, x1, x2, gc, gh))


class SLSTMGrad(FunctionNode):
    """The gradient of :class:`SLSTM`.

    It maps ``(c_prev1, c_prev2, x1, x2, gc, gh)`` to ``(gc_prev1, gc_prev2,
    gx1, gx2)``.

    Args:
        cache: The activations the forward pass computed for these inputs,
            or None to recompute them.
    """

    def __init__(self, cache: tuple[Any, ...] | None = None) -> None:
        self._cache = cache

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4, 5))
        c1, c2, x1, x2, gc, gh = inputs
        xp = backend.get_array_module(x1)
        cache = self._cache or _forward_arrays(xp, c1, c2, x1, x2)[1:]
        a1, s1, a2, s2, o, co = cache

        gct = _cell.tanh_grad(xp, co)
        gct *= o
        gct *= gh
        gct += gc
        go = gh * co
        go *= _cell.sigmoid_grad(xp, o)
        one = x1.dtype.type(1)
        grads = []
        for a, s, cp in ((a1, s1, c1), (a2, s2, c2)):
            ds = _cell.sigmoid_grad(xp, s)
            gx = xp.empty(s.shape, s.dtype)
            ga = gx[:, :, 0]
            xp.multiply(a, a, out=ga)
            xp.subtract(one, ga, out=ga)
            ga *= s[:, :, 1]
            ga *= gct
            gi = gx[:, :, 1]
            xp.multiply(gct, a, out=gi)
            gi *= ds[:, :, 1]
            gf = gx[:, :, 2]
            xp.multiply(gct, cp, out=gf)
            gf *= ds[:, :, 2]
            gx[:, :, 3] = go
            grads.append((gct * s[:, :, 2], gx.reshape(x1.shape)))
        (gc1, gx1), (gc2, gx2) = grads
        return gc1, gc2, gx1, gx2

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        c1, c2, x1, x2, gc, gh = self.get_retained_inputs()
        ggc1, ggc2, ggx1, ggx2 = (_cell.zeros_like_or(g, like.array) for g, like in
                                  zip(grad_outputs, (c1, c2, x1, x2)))
        shape = _cell.interleaved_shape(x1, c1.shape[1])
        pa1, pi1, pf1, po1 = separate(reshape(x1, shape), axis=2)
        pa2, pi2, pf2, po2 = separate(reshape(x2, shape), axis=2)
        gga1, ggi1, ggf1, ggo1 = separate(reshape(ggx1, shape), axis=2)
        gga2, ggi2, ggf2, ggo2 = separate(reshape(ggx2, shape), axis=2)
        g_a, g_i, g_f, g_cp, g_o, g_gc, g_gh = _cell.cell_grad_grad(
            [tanh(pa1), tanh(pa2)], [sigmoid(pi1), sigmoid(pi2)],
            [sigmoid(pf1), sigmoid(pf2)], [c1, c2], sigmoid(po1 + po2), gc, gh,
            [gga1, gga2], [ggi1, ggi2], [ggf1, ggf2], [ggc1, ggc2], ggo1 + ggo2)
        ret: list[Any] = []
        for index in indexes:
            if index < 2:
                ret.append(g_cp[index])
            elif index < 4:
                j = index - 2
                ret.append(reshape(stack([g_a[j], g_i[j], g_f[j], g_o], axis=2), x1.shape))
            elif index == 4:
                ret.append(g_gc)
            else:
                ret.append(g_gh)
        return tuple(ret)


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple[Variable, Variable]:
    """S-LSTM units as an activation function.

    The S-LSTM unit (Zhu et al., 2015) merges the states of two children in
    a binary tree. Like :func:`lstm`, each of ``x1`` and ``x2`` holds four
    gate sources per unit, interleaved along the second axis
    (``x[:, 4u], x[:, 4u + 1], x[:, 4u + 2], x[:, 4u + 3]`` are
    ``a, i, f, o`` of unit ``u``). The function computes

    .. math::

        c &= \\tanh(a_1) \\sigma(i_1) + \\tanh(a_2) \\sigma(i_2)
             + \\sigma(f_1) c_{\\text{prev}1} + \\sigma(f_2) c_{\\text{prev}2}, \\\\
        h &= \\sigma(o_1 + o_2) \\tanh(c).

    Args:
        c_prev1: The cell state of the first child, shape ``(B, n_units, ...)``.
        c_prev2: The cell state of the second child, shaped like ``c_prev1``.
        x1: The gate sources from the first child, shape
            ``(B, 4 * n_units, ...)``.
        x2: The gate sources from the second child, shaped like ``x1``.

    Returns:
        tuple: ``(c, h)``, both shaped like ``c_prev1``.

    Raises:
        InvalidType: If ``x1.shape[1]`` is not ``4 * c_prev1.shape[1]``, the
            two cell states or the two inputs differ in shape, the batch
            sizes or trailing axes differ, or the dtypes differ.

    .. admonition:: Example

        >>> c = np.zeros((1, 1), dtype=np.float32)
        >>> x = np.array([[1.0, 100.0, -100.0, 100.0]], dtype=np.float32)
        >>> c, h = F.slstm(c, c, x, x)
        >>> c.array
        array([[1.5231884]], dtype=float32)
    """
    c, h = SLSTM().apply((c_prev1, c_prev2, x1, x2))
    return c, h
