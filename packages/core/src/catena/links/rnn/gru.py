"""The fully-connected GRU links: :class:`StatelessGRU`, :class:`StatefulGRU` and :class:`GRU`."""

from __future__ import annotations

from typing import Any

from catena import link
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.tanh import tanh
from catena.functions.math.linear_interpolate import linear_interpolate
from catena.links.connection.linear import Linear
from catena.links.rnn import _util
from catena.variable import Variable

__all__ = ['GRU', 'GRUBase', 'StatefulGRU', 'StatelessGRU']


class GRUBase(link.Chain):
    """The six Linear links of a GRU.

    ``W_r``, ``W_z`` and ``W`` (``Linear(in_size, out_size)``) act on the
    input; ``U_r``, ``U_z`` and ``U`` (``Linear(out_size, out_size)``) on the
    state. All have biases.

    Args:
        in_size: The input size, or None to infer it at the first call.
            A single size argument means ``(None, out_size)``.
        out_size: The number of units.
        init: Initializer of the input weights; None means LeCunNormal.
        inner_init: Initializer of the state weights; None means LeCunNormal.
        bias_init: Initializer of the biases; None means zero.
    """

    def __init__(self, in_size: int | None, out_size: int | None = None, init: Any = None,
                 inner_init: Any = None, bias_init: Any = None) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        if out_size is None:
            raise ValueError(f'{type(self).__name__} needs an out_size; got None')
        in_size, out_size = _util.sizes(type(self).__name__, in_size, out_size)
        for name, value in (('init', init), ('inner_init', inner_init),
                            ('bias_init', bias_init)):
            _util.get_initializer(value, type(self).__name__, name)
        super().__init__()
        with self.init_scope():
            self.W_r = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W_z = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)


class StatelessGRU(GRUBase):
    """A GRU layer that takes its state as an argument.

    ``forward(h, x)`` computes

    .. math::

        r &= \\sigma(W_r x + U_r h), \\qquad z = \\sigma(W_z x + U_z h), \\\\
        \\bar h &= \\tanh(W x + U (r \\odot h)), \\\\
        h_{\\text{new}} &= z \\odot \\bar h + (1 - z) \\odot h.

    Arguments as in :class:`GRUBase`.
    """

    def forward(self, h: Any, x: Any) -> Variable:
        """Applies one step to the state ``h`` ``(B, out_size)`` and the input ``x``.

        Returns:
            Variable: The new state.
        """
        r = sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh(self.W(x) + self.U(r * h))
        return linear_interpolate(z, h_bar, h)


class StatefulGRU(GRUBase):
    """A GRU layer that keeps its state ``h`` between calls.

    Each call computes :class:`StatelessGRU`'s update with the kept state;
    after :meth:`reset_state` the first call has no state term:
    ``h_new = z * tanh(W x)`` with ``z = sigmoid(W_z x)``.

    Args:
        in_size, out_size, init, inner_init: As in :class:`GRUBase`.
        bias_init: Initializer of the biases; default zero.

    Attributes:
        h (~catena.Variable): The state, or None.
    """

    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int | None = None, init: Any = None,
                 inner_init: Any = None, bias_init: Any = 0) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.state_size = self.W.out_size
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h: Any) -> None:
        """Sets the state (a Variable or an array), moved to the link's device."""
        self.h = _util.as_state(self, h, 'h')

    def reset_state(self) -> None:
        """Forgets the state."""
        self.h = None

    def forward(self, x: Any) -> Variable:
        """Applies one step to ``x`` ``(B, in_size)``, keeps and returns the new state."""
        z = self.W_z(x)
        h_bar = self.W(x)
        if self.h is not None:
            r = sigmoid(self.W_r(x) + self.U_r(self.h))
            z = z + self.U_z(self.h)
            h_bar = h_bar + self.U(r * self.h)
        z = sigmoid(z)
        h_bar = tanh(h_bar)
        if self.h is not None:
            h_new = linear_interpolate(z, h_bar, self.h)
        else:
            h_new = z * h_bar
        self.h = h_new
        return h_new


class GRU(StatefulGRU):
    """The stateful GRU (:class:`StatefulGRU`), called with the input only.

    Calling it with two arguments (the stateless form of early Chainer)
    raises ValueError pointing to :class:`StatelessGRU`.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) != 1:
            message = (f'GRU takes one argument (the input), but {len(args)} were given.')
            if len(args) == 2:
                message += (' GRU is stateful; use catena.links.StatelessGRU for the '
                            'stateless form GRU(h, x).')
            raise ValueError(message)
        return super().__call__(*args, **kwargs)
