"""oneDNN kernels of ``relu``: :class:`ReLU` and its gradient :class:`ReLUGrad2`.

The forward is oneDNN's eltwise ``relu`` (``alpha = 0``); like the core's
ReLU it retains its output. The core's backward builds
``ReLUGrad2(y)``, whose constructor turns ``y > 0`` into a 0/1 coefficient
(in NumPy); the kernel of ReLUGrad2 multiplies ``gy`` by that coefficient
with oneDNN's binary primitive, exactly as the generic forward does (so
double backprop, which applies ReLUGrad2 again, is unchanged); it runs under
``'always'`` only, see :data:`GRAD_THRESHOLD`.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_intel64 import _capi
from catena_intel64.kernels.activation import _eltwise

THRESHOLD = 65536
"""Under ``use_ideep='auto'``, ReLU runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 60,000).
"""

GRAD_THRESHOLD = _eltwise.NO_CROSSOVER
"""Under ``use_ideep='auto'``, ReLUGrad2 stays on NumPy: the core computes its
coefficient in NumPy just before applying it, and the product on oneDNN then
reads that fresh array from another core's cache; measured with 2 threads it
was at best 5% faster (and slower at 3.2M elements) than NumPy's multiply.
"""


def relu(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ReLU.forward`` on oneDNN, or Fallback."""
    x, = inputs
    outputs = _eltwise.forward(node, x, 'relu', _capi.ELTWISE_RELU, 0.0, 0.0, THRESHOLD)
    if outputs is not Fallback:
        node.retain_outputs((0,))
    return outputs


def relu_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ReLUGrad2.forward`` (``gy * coefficient``) on oneDNN, or Fallback."""
    gy, = inputs
    return _eltwise.multiply(node, gy, node.coefficient, 'relu_grad', GRAD_THRESHOLD)


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import relu as nodes

    return [(nodes.ReLU, relu, THRESHOLD), (nodes.ReLUGrad2, relu_grad, GRAD_THRESHOLD)]
