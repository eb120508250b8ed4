"""``lstm``: the long short-term memory unit as an activation function."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.array.concat import concat
from catena.functions.array.reshape import reshape
from catena.functions.array.separate import separate
from catena.functions.array.stack import stack
from catena.functions.rnn import _cell
from catena.utils import type_check
from catena.variable import Variable


def _activate(xp: Any, x: Any, n_units: int) -> tuple[Any, Any]:
    """Returns ``tanh(a)`` and the sigmoid of all of ``x`` in the gate layout.

    The sigmoid of the cell-input slot is computed but never used: one
    contiguous pass over all of ``x`` is much faster than strided passes over
    three of its four slots.
    """
    r = x.reshape(_cell.interleaved_shape(x, n_units))
    a = xp.tanh(r[:, :, 0])
    sig = _cell.sigmoid(xp, r)
    return a, sig


class LSTM(FunctionNode):
    """The LSTM unit: ``(c_prev, x) -> (c, h)``; see :func:`lstm`."""

    # The activations of the last forward pass, reused by the gradient node (a
    # kernel that replaces forward may leave it None: the gradient recomputes).
    _cache: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('c_prev', 'x'))
        c_type, x_type = in_types
        type_check.expect(
            c_type.dtype.kind == 'f',
            x_type.dtype == c_type.dtype,
            c_type.ndim >= 2,
            x_type.ndim == c_type.ndim,
            x_type.shape[0] <= c_type.shape[0],
            x_type.shape[1] == 4 * c_type.shape[1],
        )
        for axis in range(2, type_check.eval(c_type.ndim)):
            type_check.expect(x_type.shape[axis] == c_type.shape[axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        c_prev, x = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        a, sig = _activate(xp, x, c_prev.shape[1])
        i, f, o = sig[:, :, 1], sig[:, :, 2], sig[:, :, 3]
        c = xp.empty(c_prev.shape, c_prev.dtype)
        c_new = c[:batch]
        xp.multiply(f, c_prev[:batch], out=c_new)
        c_new += a * i
        if batch < c.shape[0]:
            c[batch:] = c_prev[batch:]
        co = xp.tanh(c_new)
        h = xp.multiply(o, co)
        self._cache = a, sig, co
        return c, h

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        c_prev, x = self.get_retained_inputs()
        gc, gh = grad_outputs
        if gc is None:
            gc = _cell.zeros_like_or(None, c_prev.array)
        if gh is None:
            xp = backend.get_array_module(x.array)
            gh = xp.zeros((x.shape[0],) + c_prev.shape[1:], x.dtype)
        return LSTMGrad(self._cache).apply((c_prev, x, gc, gh))


class LSTMGrad(FunctionNode):
    """The gradient of :class:`LSTM`: ``(c_prev, x, gc, gh) -> (gc_prev, gx)``.

    Args:
        cache: ``(tanh(a), sigmoid(x), tanh(c))`` as the forward pass computed
            them for these ``c_prev`` and ``x``, or None to recompute them.
    """

    def __init__(self, cache: tuple[Any, Any, Any] | None = None) -> None:
        self._cache = cache

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        c_prev, x, gc, gh = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        if self._cache is None:
            a, sig = _activate(xp, x, c_prev.shape[1])
            c = a * sig[:, :, 1]
            c += sig[:, :, 2] * c_prev[:batch]
            co = xp.tanh(c, out=c)
        else:
            a, sig, co = self._cache
        i, f = sig[:, :, 1], sig[:, :, 2]

        gct = _cell.tanh_grad(xp, co)
        gct *= sig[:, :, 3]
        gct *= gh
        gct += gc[:batch]
        dsig = _cell.sigmoid_grad(xp, sig)
        gx = xp.empty(sig.shape, x.dtype)
        ga = gx[:, :, 0]
        xp.multiply(a, a, out=ga)
        xp.subtract(x.dtype.type(1), ga, out=ga)
        ga *= i
        ga *= gct
        gi = gx[:, :, 1]
        xp.multiply(gct, a, out=gi)
        gi *= dsig[:, :, 1]
        gf = gx[:, :, 2]
        xp.multiply(gct, c_prev[:batch], out=gf)
        gf *= dsig[:, :, 2]
        go = gx[:, :, 3]
        xp.multiply(gh, co, out=go)
        go *= dsig[:, :, 3]

        gc_prev = xp.empty(c_prev.shape, c_prev.dtype)
        xp.multiply(gct, f, out=gc_prev[:batch])
        if batch < c_prev.shape[0]:
            gc_prev[batch:] = gc[batch:]
        return gc_prev, gx.reshape(x.shape)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        c_prev, x, gc, gh = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        ggc_prev = _cell.zeros_like_or(ggc_prev, c_prev.array)
        ggx = _cell.zeros_like_or(ggx, x.array)
        batch, full = x.shape[0], c_prev.shape[0]
        shape = _cell.interleaved_shape(x, c_prev.shape[1])

        cp, gc_head, ggcp_head = c_prev, gc, ggc_prev
        ggcp_tail = None
        if batch < full:
            cp = _cell.split(c_prev, [batch], 0)[0]
            gc_head = _cell.split(gc, [batch], 0)[0]
            ggcp_head, ggcp_tail = _cell.split(ggc_prev, [batch], 0)
        pre_a, pre_i, pre_f, pre_o = separate(reshape(x, shape), axis=2)
        gga, ggi, ggf, ggo = separate(reshape(ggx, shape), axis=2)
        a, i, f, o = tanh(pre_a), sigmoid(pre_i), sigmoid(pre_f), sigmoid(pre_o)
        g_a, g_i, g_f, g_cp, g_o, g_gc, g_gh = _cell.cell_grad_grad(
            [a], [i], [f], [cp], o, gc_head, gh, [gga], [ggi], [ggf], [ggcp_head], ggo)

        ret: list[Any] = []
        for index in indexes:
            if index == 0:
                g = g_cp[0]
                if ggcp_tail is not None:
                    xp = backend.get_array_module(c_prev.array)
                    g = concat([g, xp.zeros(ggcp_tail.shape, c_prev.dtype)], axis=0)
                ret.append(g)
            elif index == 1:
                ret.append(reshape(stack([g_a[0], g_i[0], g_f[0], g_o], axis=2), x.shape))
            elif index == 2:
                ret.append(g_gc if ggcp_tail is None else concat([g_gc, ggcp_tail], axis=0))
            else:
                ret.append(g_gh)
        return tuple(ret)


def lstm(c_prev: Any, x: Any) -> tuple[Variable, Variable]:
    """Long short-term memory units as an activation function.

    ``x`` holds the pre-activations of four gates per unit, interleaved
    along the second axis: for unit ``u`` the cell input, input gate,
    forget gate and output gate sources are ``x[:, 4u]``, ``x[:, 4u + 1]``,
    ``x[:, 4u + 2]`` and ``x[:, 4u + 3]`` (call them ``a, i, f, o``). The
    function computes

    .. math::

        c = \\tanh(a) \\sigma(i) + c_{\\text{prev}} \\sigma(f), \\qquad
        h = \\tanh(c) \\sigma(o).

    The mini-batch of ``x`` may be smaller than that of ``c_prev`` (sequences
    sorted by decreasing length): then only ``c[:len(x)]`` is updated, the
    other rows of ``c`` are ``c_prev``'s, and ``h`` has ``len(x)`` rows.

    Args:
        c_prev: The previous cell state, shape ``(B, n_units, ...)``.
        x: The gate sources, shape ``(B_x, 4 * n_units, ...)`` with
            ``B_x <= B`` and the same trailing axes as ``c_prev``.

    Returns:
        tuple: ``(c, h)``: the new cell state, shaped like ``c_prev``, and the
        output, shape ``(B_x, n_units, ...)``.

    Raises:
        InvalidType: If ``x.shape[1]`` is not ``4 * c_prev.shape[1]``, the
            batch of ``x`` exceeds that of ``c_prev``, the other axes or the
            dtypes differ.

    .. admonition:: Example

        >>> c = np.zeros((1, 1), dtype=np.float32)
        >>> x = np.array([[1.0, 100.0, -100.0, 100.0]], dtype=np.float32)
        >>> c, h = F.lstm(c, x)
        >>> c.array, h.array
        (array([[0.7615942]], dtype=float32), array([[0.64201504]], dtype=float32))
    """
    c, h = LSTM().apply((c_prev, x))
    return c, h
