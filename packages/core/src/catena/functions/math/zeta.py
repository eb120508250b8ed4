"""``zeta``: the Hurwitz zeta function."""

from __future__ import annotations

import numbers
from typing import Any

from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.math import _special
from catena.functions.math.sum_to import sum_to
from catena.utils import type_check
from catena.variable import Variable


class Zeta(FunctionNode):
    """:math:`\\zeta(x, q) = \\sum_{k=0}^\\infty (k + q)^{-x}` for a constant ``x``."""

    def __init__(self, x: Any) -> None:
        if isinstance(x, Variable):
            raise TypeError('zeta is differentiable with respect to q only: pass x as an array '
                            'or a scalar, not a Variable (use x.array)')
        if getattr(x, 'dtype', None) is None and (
                isinstance(x, bool) or not isinstance(x, numbers.Real)):
            raise _arguments.wrong_kind('zeta', 'x', 'an array or a real number', x)
        self._x = x

    @property
    def x(self) -> Any:
        """The constant first argument."""
        return self._x

    @property
    def label(self) -> str:
        return 'zeta'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('q',))
        q_type, = in_types
        type_check.expect(q_type.dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        q, = inputs
        return _special.compute('zeta', 'zeta', q, self._x, q),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        q, = self.get_retained_inputs()
        x = self._x
        # d/dq zeta(x, q) = -x zeta(x + 1, q)
        gq = grad_outputs[0] * zeta(x + 1, q) * -x
        return sum_to(gq, q.shape),


def zeta(x: Any, q: Any) -> Variable:
    """Elementwise Hurwitz zeta function.

    .. math:: \\zeta(x, q) = \\sum_{k=0}^{\\infty} \\frac{1}{(k + q)^x}

    As in Chainer it is differentiable with respect to ``q`` only; ``x`` is a
    constant. On the CPU it needs SciPy.

    Args:
        x: An array (on the device of ``q``) or a scalar: the exponents.
        q: A Variable or array of floating point type.

    Returns:
        Variable: :math:`\\zeta(x, q)`, of the dtype of ``q``.

    .. admonition:: Example

        >>> F.zeta(2.0, np.array([1.0], dtype=np.float64)).array
        array([1.64493407])
    """
    return Zeta(x).apply((q,))[0]
