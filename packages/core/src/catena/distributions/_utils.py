"""Small differentiable helpers shared by the distributions."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.where import where
from catena.functions.math.exponential import log
from catena.utils import force_array, type_check
from catena.variable import Variable


class ModifiedXLogX(FunctionNode):
    """``x * log(x)`` extended by continuity to 0 at ``x = 0``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, = inputs
        xp = backend.get_array_module(x)
        positive = x > 0
        # log(1) = 0 where x is 0, so 0 * log(x) never makes a NaN.
        y = force_array(xp.log(xp.where(positive, x, x.dtype.type(1))))
        y *= x
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        xp = backend.get_array_module(x.array)
        positive = force_array(x.array > 0)
        if not bool(positive.all()):
            warnings.warn('xlogx: the gradient at x = 0 is infinite; it is taken as 0',
                          RuntimeWarning, stacklevel=2)
        # d/dx x log x = log x + 1; taken as 0 at x = 0 (and below), where it diverges.
        dx = where(positive, log(where(positive, x, xp.ones_like(x.array))) + 1.0,
                   xp.zeros_like(x.array))
        return gy * dx,


def xlogx(x: Any) -> Variable:
    """``x * log(x)``, with the value 0 at ``x = 0``.

    The gradient at ``x = 0`` is taken as 0; backward warns
    (RuntimeWarning) when it meets such a point, where the true gradient is
    infinite.
    """
    return ModifiedXLogX().apply((x,))[0]


def zero_probabilities_allowed() -> Any:
    """A context in which ``log(0) = -inf`` and ``0 * -inf`` raise no NumPy warning.

    Probabilities of exactly 0 are valid parameters; the terms they spoil are
    masked out by the callers.
    """
    return numpy.errstate(divide='ignore', invalid='ignore')
