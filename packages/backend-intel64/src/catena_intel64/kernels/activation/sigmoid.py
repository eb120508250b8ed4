"""oneDNN kernels of ``sigmoid``: :class:`Sigmoid` and its gradient :class:`SigmoidGrad`.

The forward is oneDNN's eltwise ``logistic``, :math:`1 / (1 + e^{-x})`,
which saturates to 0 and 1 without overflow, like the core's
``(1 + tanh(x / 2)) / 2``; like the core's Sigmoid it retains its output.
SigmoidGrad (inputs ``y``, ``gy``; ``gx = gy * y * (1 - y)``) is oneDNN's
eltwise backward of ``logistic_use_dst_for_bwd``, which computes the same
from the output; like the core's SigmoidGrad it retains both inputs for
double backprop. The two formulas differ in the last bits (float32
tolerance); for very negative ``x`` oneDNN may return a tiny positive value
(down to subnormals) where the core's formula gives exactly 0.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_intel64 import _capi
from catena_intel64.kernels.activation import _eltwise

THRESHOLD = 32768
"""Under ``use_ideep='auto'``, Sigmoid runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 28,000).
"""

GRAD_THRESHOLD = 81920
"""Under ``use_ideep='auto'``, SigmoidGrad runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 80,000).
"""


def sigmoid(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Sigmoid.forward`` on oneDNN, or Fallback."""
    x, = inputs
    outputs = _eltwise.forward(node, x, 'sigmoid', _capi.ELTWISE_LOGISTIC, 0.0, 0.0,
                               THRESHOLD)
    if outputs is not Fallback:
        node.retain_outputs((0,))
    return outputs


def sigmoid_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``SigmoidGrad.forward`` (inputs ``y``, ``gy``) on oneDNN, or Fallback."""
    y, gy = inputs
    outputs = _eltwise.backward(node, y, gy, 'sigmoid_grad',
                                _capi.ELTWISE_LOGISTIC_USE_DST_FOR_BWD, 0.0, 0.0, True,
                                GRAD_THRESHOLD)
    if outputs is not Fallback:
        node.retain_inputs((0, 1))
    return outputs


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import sigmoid as nodes

    return [(nodes.Sigmoid, sigmoid, THRESHOLD),
            (nodes.SigmoidGrad, sigmoid_grad, GRAD_THRESHOLD)]
