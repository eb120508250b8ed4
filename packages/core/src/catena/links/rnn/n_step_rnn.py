"""The stacked Elman RNN links over variable-length sequences, and their shared base."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena import link
from catena.functions.array.permutate import permutate
from catena.functions.array.transpose_sequence import transpose_sequence
from catena.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from catena.links.rnn import _util
from catena.utils import _validate
from catena.variable import Parameter, Variable

__all__ = ['NStepBiRNNReLU', 'NStepBiRNNTanh', 'NStepRNNBase', 'NStepRNNReLU', 'NStepRNNTanh']


class NStepRNNBase(link.ChainList):
    """The base of the n-step recurrent links: a ChainList of one Link per layer and direction.

    Child ``k`` (layer ``k // D``, direction ``k % D`` with ``D`` 2 for the
    bi-directional links, else 1) holds the weights ``w0 ... w{n-1}`` and
    biases ``b0 ... b{n-1}`` that the n-step function takes as ``ws[k]`` and
    ``bs[k]``. The first half of the weights multiplies the layer's input:
    shape ``(out_size, in_size)`` in layer 0 and ``(out_size, D * out_size)``
    above; the other half multiplies the hidden state,
    ``(out_size, out_size)``. Biases are ``(out_size,)``.

    The links take a list of sequences ``xs[i]`` of shape ``(L_i, in_size)``
    in any order; they sort them by decreasing length, transpose them to the
    time-major layout of the functions and give back ``ys[i]`` of shape
    ``(L_i, D * out_size)`` in the order of ``xs``. The batch axis of the
    states (``hx``, ``hy``; ``cx``, ``cy``) also follows the order of ``xs``.

    Args:
        n_layers: The number of layers.
        in_size: The input size, or None to infer it at the first call.
        out_size: The number of units.
        dropout: The dropout ratio applied to the input of every layer but
            the first.
        initialW: Initializer of the weights; None means LeCunNormal.
        initial_bias: Initializer of the biases; None means zero.

    Attributes:
        n_layers, out_size, dropout: As given.
        direction (int): 2 for bi-directional links, else 1.
        n_cells (int): The number of state arrays the link carries (1: ``hx``;
            2 for LSTMs: ``hx`` and ``cx``).
    """

    n_weights = 2
    n_cells = 1
    use_bi_direction = False

    def __init__(self, n_layers: int, in_size: int | None, out_size: int, dropout: float,
                 initialW: Any = None, initial_bias: Any = None, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f'{type(self).__name__} got unexpected keyword arguments '
                            f'{sorted(kwargs)}')
        who = type(self).__name__
        n_layers = _validate.integer(who, 'n_layers', n_layers, 1)
        in_size, out_size = _util.sizes(who, in_size, out_size)
        _validate.real(who, 'dropout', dropout, 0, 1, high_open=True)
        direction = 2 if self.use_bi_direction else 1
        w_init = _util.get_initializer(initialW, who, 'initialW')
        b_init = _util.get_initializer(0 if initial_bias is None else initial_bias, who,
                                       'initial_bias')
        half = self.n_weights // 2
        children = []
        for layer in range(n_layers):
            for _ in range(direction):
                child = link.Link()
                with child.init_scope():
                    for j in range(self.n_weights):
                        if j >= half:
                            w_in: int | None = out_size
                        elif layer == 0:
                            w_in = in_size
                        else:
                            w_in = out_size * direction
                        shape = None if w_in is None else (out_size, w_in)
                        setattr(child, f'w{j}', Parameter(w_init, shape))
                        setattr(child, f'b{j}', Parameter(b_init, out_size))
                children.append(child)
        super().__init__(*children)
        self.n_layers = n_layers
        self.in_size = in_size
        self.out_size = out_size
        self.dropout = dropout
        self.direction = direction

    @property
    def ws(self) -> list[list[Parameter]]:
        """The weights, ``ws[k][j]`` being child ``k``'s ``w{j}``."""
        return [[getattr(child, f'w{j}') for j in range(self.n_weights)] for child in self]

    @property
    def bs(self) -> list[list[Parameter]]:
        """The biases, ``bs[k][j]`` being child ``k``'s ``b{j}``."""
        return [[getattr(child, f'b{j}') for j in range(self.n_weights)] for child in self]

    def init_hx(self, xs: Sequence[Any]) -> Variable:
        """Returns zero initial states for the batch ``xs``."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return Variable(self.xp.zeros(shape, dtype=xs[0].dtype))

    def rnn(self, *args: Any) -> tuple[Any, ...]:
        """Calls the n-step function of the link on time-major arguments."""
        raise NotImplementedError(f'{type(self).__name__} must implement rnn()')

    def _lazy_init(self, xs: Sequence[Any]) -> None:
        if self.in_size is not None:
            return
        shape = xs[0].shape
        if len(shape) != 2 or shape[1] == 0:
            raise ValueError(f'{type(self).__name__} cannot infer its in_size from '
                             f'xs[0].shape={shape}: each sequence must be (L, in_size)')
        in_size = int(shape[1])
        for child in list(self)[:self.direction]:
            for j in range(self.n_weights // 2):
                getattr(child, f'w{j}').initialize((self.out_size, in_size))
        self.in_size = in_size

    def _call(self, hs: Sequence[Any], xs: Sequence[Any]) -> list[Any]:
        if not isinstance(xs, (list, tuple)) or not xs:
            raise ValueError(f'{type(self).__name__}: xs must be a non-empty list of '
                             f'sequences; got {type(xs).__name__}')
        self._lazy_init(xs)
        order = numpy.argsort([-len(x) for x in xs], kind='stable')
        # Sequences already in descending length order (equal lengths, say) need no
        # permutation of the states.
        sorted_already = bool((order == numpy.arange(len(order))).all())
        order_array = self.xp.asarray(order.astype(numpy.int32))
        sorted_xs = [xs[i] for i in order]
        states = []
        for h in hs:
            if h is None:
                h = self.init_hx(xs)
            elif not sorted_already:
                h = permutate(h, order_array, axis=1)
            states.append(h)
        result = self.rnn(self.n_layers, self.dropout, *states, self.ws, self.bs,
                          transpose_sequence(sorted_xs))
        out_states = (list(result[:-1]) if sorted_already else
                      [permutate(h, order_array, axis=1, inv=True) for h in result[:-1]])
        sorted_ys = transpose_sequence(result[-1])
        ys: list[Any] = [None] * len(xs)
        for position, index in enumerate(order):
            ys[index] = sorted_ys[position]
        return out_states + [ys]


class _NStepRNN(NStepRNNBase):
    activation = 'tanh'

    def rnn(self, *args: Any) -> tuple[Any, ...]:
        n_layers, dropout, hx, ws, bs, xs = args
        function = n_step_birnn if self.use_bi_direction else n_step_rnn
        return function(n_layers, dropout, hx, ws, bs, xs, activation=self.activation)

    def forward(self, hx: Any, xs: Sequence[Any]) -> tuple[Variable, list[Variable]]:
        """Runs the stacked RNN.

        Args:
            hx: The initial states ``(n_layers * D, B, out_size)``, or None
                (zeros).
            xs: ``B`` sequences, ``xs[i]`` of shape ``(L_i, in_size)``.

        Returns:
            tuple: ``(hy, ys)``: the final states, shaped like ``hx``, and
            the outputs ``ys[i]`` of shape ``(L_i, D * out_size)``.
        """
        hy, ys = self._call([hx], xs)
        return hy, ys


class NStepRNNTanh(_NStepRNN):
    """Stacked uni-directional Elman RNN with tanh for sequences (see :class:`NStepRNNBase`).

    Computes :func:`~catena.functions.n_step_rnn` with ``activation='tanh'``.
    """


class NStepRNNReLU(_NStepRNN):
    """Stacked uni-directional Elman RNN with ReLU for sequences (see :class:`NStepRNNBase`).

    Computes :func:`~catena.functions.n_step_rnn` with ``activation='relu'``.
    """

    activation = 'relu'


class NStepBiRNNTanh(_NStepRNN):
    """Stacked bi-directional Elman RNN with tanh for sequences (see :class:`NStepRNNBase`).

    Computes :func:`~catena.functions.n_step_birnn` with ``activation='tanh'``.
    """

    use_bi_direction = True


class NStepBiRNNReLU(_NStepRNN):
    """Stacked bi-directional Elman RNN with ReLU for sequences (see :class:`NStepRNNBase`).

    Computes :func:`~catena.functions.n_step_birnn` with ``activation='relu'``.
    """

    activation = 'relu'
    use_bi_direction = True
