"""oneDNN kernels of ``elu``: :class:`ELU` and its derivative :class:`ELUGrad`.

The forward is oneDNN's eltwise ``elu`` with the node's ``alpha``
(``x > 0 ? x : alpha * expm1(x)``, which agrees with the core at 0); like
the core's ELU it retains its input.

The core's backward applies ``ELUGrad(alpha)`` to ``x`` and multiplies the
derivative it returns by ``gy`` (so that double backprop works). ELUGrad is
computed as oneDNN's eltwise backward of ``elu`` from ``src = x`` with
``diff_dst = 1`` (a read-only array of ones kept per size). oneDNN's
derivative at exactly ``x = 0`` is ``alpha * exp(0) = alpha`` where the core
says 1, so for ``alpha != 1`` the kernel sets those elements to 1 afterwards.
Like the core's ELUGrad it retains its input and its output.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends import Fallback
from catena_intel64 import _capi
from catena_intel64.kernels import _common
from catena_intel64.kernels.activation import _eltwise

THRESHOLD = 4096
"""Under ``use_ideep='auto'``, ELU runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 4,000: NumPy's elu takes five passes).
"""

GRAD_THRESHOLD = 16384
"""Under ``use_ideep='auto'``, ELUGrad runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 13,000-16,000).
"""

_ones: dict[int, numpy.ndarray] = {}


def _ones_of(size: int) -> numpy.ndarray:
    ones = _ones.get(size)
    if ones is None:
        ones = numpy.ones(size, _common.FLOAT32)
        ones.flags.writeable = False
        _ones[size] = ones
    return ones


def elu(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ELU.forward`` on oneDNN, or Fallback."""
    x, = inputs
    outputs = _eltwise.forward(node, x, 'elu', _capi.ELTWISE_ELU, float(node.alpha), 0.0,
                               THRESHOLD)
    if outputs is not Fallback:
        node.retain_inputs((0,))
    return outputs


def elu_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ELUGrad.forward`` (the derivative at ``x``) on oneDNN, or Fallback."""
    x, = inputs
    if x.dtype != _common.FLOAT32 or _eltwise.declines(x.size, GRAD_THRESHOLD):
        return Fallback
    alpha = float(node.alpha)
    outputs = _eltwise.backward(node, x, _ones_of(x.size).reshape(x.shape), 'elu_grad',
                                _capi.ELTWISE_ELU, alpha, 0.0, False, 0)
    if outputs is Fallback:
        return outputs
    if alpha != 1 and not x.all():
        dydx, = outputs
        dydx[x == 0] = 1
    node.retain_inputs((0,))
    node.retain_outputs((0,))
    return outputs


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import elu as nodes

    return [(nodes.ELU, elu, THRESHOLD), (nodes.ELUGrad, elu_grad, GRAD_THRESHOLD)]
