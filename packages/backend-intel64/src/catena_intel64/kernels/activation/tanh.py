"""oneDNN kernels of ``tanh``: :class:`Tanh` and its gradient :class:`TanhGrad`.

The forward is oneDNN's eltwise ``tanh``; like the core's Tanh it retains its
output. TanhGrad (inputs ``y``, ``gy``; ``gx = gy * (1 - y * y)``) is
oneDNN's eltwise backward of ``tanh_use_dst_for_bwd``, which computes the
same from the output; like the core's TanhGrad it retains both inputs for
double backprop. oneDNN's vectorised tanh differs from NumPy's in the last
bits (float32 tolerance).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_intel64 import _capi
from catena_intel64.kernels.activation import _eltwise

THRESHOLD = 131072
"""Under ``use_ideep='auto'``, Tanh runs on oneDNN from this many elements on
(NumPy's vectorised tanh breaks even at about 100,000 with 2 threads).
"""

GRAD_THRESHOLD = 98304
"""Under ``use_ideep='auto'``, TanhGrad runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 90,000).
"""


def tanh(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Tanh.forward`` on oneDNN, or Fallback."""
    x, = inputs
    outputs = _eltwise.forward(node, x, 'tanh', _capi.ELTWISE_TANH, 0.0, 0.0, THRESHOLD)
    if outputs is not Fallback:
        node.retain_outputs((0,))
    return outputs


def tanh_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``TanhGrad.forward`` (inputs ``y``, ``gy``) on oneDNN, or Fallback."""
    y, gy = inputs
    outputs = _eltwise.backward(node, y, gy, 'tanh_grad', _capi.ELTWISE_TANH_USE_DST_FOR_BWD,
                                0.0, 0.0, True, GRAD_THRESHOLD)
    if outputs is not Fallback:
        node.retain_inputs((0, 1))
    return outputs


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import tanh as nodes

    return [(nodes.Tanh, tanh, THRESHOLD), (nodes.TanhGrad, tanh_grad, GRAD_THRESHOLD)]
