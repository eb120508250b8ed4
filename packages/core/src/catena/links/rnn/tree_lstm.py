"""Tree LSTM links (Tai et al., 2015): :class:`ChildSumTreeLSTM` and :class:`NaryTreeLSTM`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from catena import link
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.array.concat import concat
from catena.functions.array.split_axis import split_axis
from catena.functions.rnn.tree_lstm import tree_lstm
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.utils import _validate
from catena.variable import Variable

__all__ = ['ChildSumTreeLSTM', 'NaryTreeLSTM']


def _input_or_zeros(owner: Any, cs: Sequence[Any], hs: Sequence[Any], x: Any) -> Any:
    """Returns ``x``, or zeros ``(B, in_size)`` shaped after the first given state."""
    if x is not None:
        return x
    given = [v for v in (*cs, *hs) if v is not None]
    if not given:
        raise ValueError(f'{type(owner).__name__}: all inputs (cs, hs, x) are None')
    base = given[0]
    return owner.xp.zeros((base.shape[0], owner.in_size), dtype=base.dtype)


def _pad_zeros(owner: Any, vs: Sequence[Any], batch: int, dtype: Any) -> tuple[Any, ...]:
    """Replaces the missing states in ``vs`` by zeros ``(batch, state_size)``."""
    if all(v is not None for v in vs):
        return tuple(vs)
    zero = owner.xp.zeros((batch, owner.state_size), dtype=dtype)
    return tuple(zero if v is None else v for v in vs)


class ChildSumTreeLSTM(link.Chain):
    """Child-Sum TreeLSTM unit, for any number of children.

    Called as ``link(c_1, ..., c_n, h_1, ..., h_n, x)`` with the cell states
    and outputs of ``n >= 0`` children and the node's input ``x``, it
    computes with ``\\tilde h = \\sum_k h_k``

    .. math::

        [a; i; o] &= W_x^{aio} x + W_{h,aio} \\tilde h, \\qquad
        f_k = W_x^{f} x + W_{h,f} h_k, \\\\
        c &= \\tanh(a) \\sigma(i) + \\sum_k \\sigma(f_k) c_k, \\qquad
        h = \\sigma(o) \\tanh(c),

    where ``W_x`` (``Linear(in_size, 4 * out_size)``) gives the blocks
    ``a, i, o, f`` of the input term. A None state stands for zeros; ``x``
    None stands for a zero input.

    Args:
        in_size: The input size.
        out_size: The number of units.

    Attributes:
        W_x, W_h_aio, W_h_f (~catena.links.Linear): The links above (the
            last two without bias).
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        in_size, out_size = _util.sizes('ChildSumTreeLSTM', in_size, out_size)
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)
        self.in_size = in_size
        self.state_size = out_size

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """Applies the unit to ``c_1, ..., c_n, h_1, ..., h_n, x``; returns ``(c, h)``."""
        if len(cshsx) % 2 != 1:
            raise ValueError(f'ChildSumTreeLSTM takes c_1..c_n, h_1..h_n and x (an odd number '
                             f'of arguments); got {len(cshsx)}')
        n = len(cshsx) // 2
        cs, hs = cshsx[:n], cshsx[n:-1]
        x = _input_or_zeros(self, cs, hs, cshsx[-1])
        parts = split_axis(self.W_x(x), [3 * self.state_size], axis=1)
        assert isinstance(parts, tuple)
        x_aio, x_f = parts
        if n == 0:
            gates = split_axis(x_aio, 3, axis=1)
            assert isinstance(gates, tuple)
            a, i, o = gates
            c = sigmoid(i) * tanh(a)
            return c, sigmoid(o) * tanh(c)
        hs = _pad_zeros(self, hs, x.shape[0], x.dtype)
        cs = _pad_zeros(self, cs, x.shape[0], x.dtype)
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = h_sum + h
        aio = self.W_h_aio(h_sum) + x_aio
        h_f = self.W_h_f(concat(hs, axis=0))
        f_parts = split_axis(h_f, n, axis=0)
        assert isinstance(f_parts, tuple)
        f = concat(f_parts, axis=1) + concat([x_f] * n, axis=1)
        return tree_lstm(*cs, concat([aio, f], axis=1))


class NaryTreeLSTM(link.Chain):
    """N-ary TreeLSTM unit, for a fixed number ``n_ary`` of ordered children.

    Called as ``link(c_1, ..., c_N, h_1, ..., h_N, x)``, it computes the gate
    sources ``W_x x + \\sum_k W_{h_k} h_k`` (``(3 + N) * out_size`` values in
    the blocks ``a, i, o, f_1, ..., f_N``) and applies
    :func:`~catena.functions.tree_lstm`. A None state stands for zeros;
    ``x`` None stands for a zero input.

    Args:
        in_size: The input size.
        out_size: The number of units.
        n_ary: The number of children.

    Attributes:
        W_x (~catena.links.Linear): The input link.
        W_h1, ..., W_hN (~catena.links.Linear): The children's links (no bias).
    """

    def __init__(self, in_size: int, out_size: int, n_ary: int = 2) -> None:
        in_size, out_size = _util.sizes('NaryTreeLSTM', in_size, out_size)
        n_ary = _validate.integer('NaryTreeLSTM', 'n_ary', n_ary, 1)
        super().__init__()
        with self.init_scope():
            self.W_x = Linear(in_size, (3 + n_ary) * out_size)
            for k in range(1, n_ary + 1):
                setattr(self, f'W_h{k}', Linear(out_size, (3 + n_ary) * out_size, nobias=True))
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """Applies the unit to ``c_1, ..., c_N, h_1, ..., h_N, x``; returns ``(c, h)``."""
        if len(cshsx) != 2 * self.n_ary + 1:
            raise ValueError(f'NaryTreeLSTM with n_ary={self.n_ary} takes '
                             f'{2 * self.n_ary + 1} arguments (cs, hs, x); got {len(cshsx)}')
        cs, hs = cshsx[:self.n_ary], cshsx[self.n_ary:-1]
        x = _input_or_zeros(self, cs, hs, cshsx[-1])
        gates = self.W_x(x)
        for k, h in enumerate(hs, start=1):
            if h is not None:
                gates = gates + getattr(self, f'W_h{k}')(h)
        cs = _pad_zeros(self, cs, x.shape[0], x.dtype)
        return tree_lstm(*cs, gates)
