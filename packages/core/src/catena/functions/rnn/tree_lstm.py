"""``tree_lstm``: the N-ary TreeLSTM unit, an LSTM over the children of a tree node."""

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


def _block_shape(x: Any, n_gates: int) -> tuple[int, ...]:
    # Unlike lstm, each gate is one contiguous block: x[:, k * n : (k + 1) * n] is gate k.
    return (x.shape[0], n_gates, x.shape[1] // n_gates) + tuple(x.shape[2:])


def _forward_arrays(xp: Any, cs: tuple[Any, ...], x: Any) -> tuple[Any, Any, Any, Any]:
    """Returns ``(c, tanh(a), sigmoid(x) in the gate layout, tanh(c))``."""
    r = x.reshape(_block_shape(x, len(cs) + 3))
    a = xp.tanh(r[:, 0])
    sig = _cell.sigmoid(xp, r[:, 1:])  # i, o, f_1, ..., f_n
    c = a * sig[:, 0]
    for k, ck in enumerate(cs):
        c += sig[:, 2 + k] * ck
    return c, a, sig, xp.tanh(c)


class TreeLSTM(FunctionNode):
    """The N-ary TreeLSTM unit: ``(c_1, ..., c_n, x) -> (c, h)``; see :func:`tree_lstm`."""

    # The activations of the last forward pass, reused by the gradient node (a
    # kernel that replaces forward may leave it None: the gradient recomputes).
    _cache: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(n_in >= 2)
        n_ary = type_check.eval(n_in) - 1
        type_check._argname(in_types, [f'c{k + 1}' for k in range(n_ary)] + ['x'])
        x_type, c_type = in_types[n_ary], in_types[0]
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim >= 2,
            c_type.ndim == x_type.ndim,
            c_type.shape[0] == x_type.shape[0],
            x_type.shape[1] == (3 + n_ary) * c_type.shape[1],
        )
        for c_other in in_types[:n_ary]:
            type_check.expect(c_other.dtype == x_type.dtype, c_other.ndim == x_type.ndim)
            for axis in range(type_check.eval(x_type.ndim)):
                type_check.expect(c_other.shape[axis] == c_type.shape[axis])
        for axis in range(2, type_check.eval(x_type.ndim)):
            type_check.expect(x_type.shape[axis] == c_type.shape[axis])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(inputs[-1])
        c, a, sig, co = _forward_arrays(xp, inputs[:-1], inputs[-1])
        self._cache = a, sig, co
        return c, xp.multiply(sig[:, 1], co)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        inputs = self.get_retained_inputs()
        gc, gh = grad_outputs
        gc = _cell.zeros_like_or(gc, inputs[0].array)
        gh = _cell.zeros_like_or(gh, inputs[0].array)
        return TreeLSTMGrad(self._cache).apply(inputs + (gc, gh))


class TreeLSTMGrad(FunctionNode):
    """The gradient of :class:`TreeLSTM`: ``(c_1, ..., c_n, x, gc, gh) -> (gc_1, ..., gc_n, gx)``.

    Args:
        cache: The activations the forward pass computed for these inputs,
            or None to recompute them.
    """

    def __init__(self, cache: tuple[Any, Any, Any] | None = None) -> None:
        self._cache = cache

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        cs, x, gc, gh = inputs[:-3], inputs[-3], inputs[-2], inputs[-1]
        xp = backend.get_array_module(x)
        a, sig, co = self._cache or _forward_arrays(xp, cs, x)[1:]
        i, o = sig[:, 0], sig[:, 1]

        gct = _cell.tanh_grad(xp, co)
        gct *= o
        gct *= gh
        gct += gc
        dsig = _cell.sigmoid_grad(xp, sig)
        gx = xp.empty(_block_shape(x, len(cs) + 3), x.dtype)
        ga = gx[:, 0]
        xp.multiply(a, a, out=ga)
        xp.subtract(x.dtype.type(1), ga, out=ga)
        ga *= i
        ga *= gct
        xp.multiply(gct, a, out=gx[:, 1])
        gx[:, 1] *= dsig[:, 0]
        xp.multiply(gh, co, out=gx[:, 2])
        gx[:, 2] *= dsig[:, 1]
        gcs = []
        for k, ck in enumerate(cs):
            xp.multiply(gct, ck, out=gx[:, 3 + k])
            gx[:, 3 + k] *= dsig[:, 2 + k]
            gcs.append(gct * sig[:, 2 + k])
        return tuple(gcs) + (gx.reshape(x.shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        inputs = self.get_retained_inputs()
        cs, x, gc, gh = list(inputs[:-3]), inputs[-3], inputs[-2], inputs[-1]
        n_ary = len(cs)
        ggs = [_cell.zeros_like_or(g, like.array) for g, like in zip(grad_outputs, cs + [x])]
        shape = _block_shape(x, n_ary + 3)
        pre = separate(reshape(x, shape), axis=1)
        gg = separate(reshape(ggs[-1], shape), axis=1)
        g_a, g_i, g_f, g_cp, g_o, g_gc, g_gh = _cell.cell_grad_grad(
            [tanh(pre[0])], [sigmoid(pre[1])], [sigmoid(p) for p in pre[3:]], cs,
            sigmoid(pre[2]), gc, gh, [gg[0]], [gg[1]], list(gg[3:]), ggs[:-1], gg[2])
        ret: list[Any] = []
        for index in indexes:
            if index < n_ary:
                ret.append(g_cp[index])
            elif index == n_ary:
                ret.append(reshape(stack([g_a[0], g_i[0], g_o] + g_f, axis=1), x.shape))
            elif index == n_ary + 1:
                ret.append(g_gc)
            else:
                ret.append(g_gh)
        return tuple(ret)


def tree_lstm(*inputs: Any) -> tuple[Variable, Variable]:
    """N-ary TreeLSTM units as an activation function.

    The unit (Tai et al., 2015) combines the cell states ``c_1, ..., c_n`` of
    ``n`` children. The last argument ``x`` holds ``3 + n`` gate sources,
    each a contiguous block of ``n_units`` along the second axis, in the
    order ``a, i, o, f_1, ..., f_n`` (``x[:, :n_units]`` is ``a``, and so
    on). The function computes

    .. math::

        c &= \\tanh(a) \\sigma(i) + \\sum_{k=1}^{n} \\sigma(f_k) c_k, \\\\
        h &= \\sigma(o) \\tanh(c).

    Args:
        inputs: ``c_1, ..., c_n, x``: the children's cell states, each of
            shape ``(B, n_units, ...)``, then ``x`` of shape
            ``(B, (3 + n) * n_units, ...)``.

    Returns:
        tuple: ``(c, h)``, both shaped like ``c_1``.

    Raises:
        InvalidType: If fewer than two arguments are given, ``x.shape[1]`` is
            not ``(3 + n) * c_1.shape[1]``, the cell states differ in shape,
            the batch sizes or trailing axes differ, or the dtypes differ.

    .. admonition:: Example

        >>> c1 = np.ones((1, 1), dtype=np.float32)
        >>> x = np.array([[0.0, 0.0, 100.0, 100.0]], dtype=np.float32)
        >>> c, h = F.tree_lstm(c1, x)
        >>> c.array, h.array
        (array([[1.]], dtype=float32), array([[0.7615942]], dtype=float32))
    """
    c, h = TreeLSTM().apply(inputs)
    return c, h
