"""oneDNN kernels of ``leaky_relu``: :class:`LeakyReLU` and its gradient.

Chainer's leaky_relu, ``x`` for ``x >= 0`` and ``slope * x`` below, is
oneDNN's eltwise ``relu`` with ``alpha = slope`` (``x > 0 ? x : alpha * x``
agrees at 0 and for every slope, negative or above 1). Like the core's
LeakyReLU the kernel retains its input. The core's backward computes the
per-element slopes (1 or ``slope``) in NumPy and applies ``_LeakyReLUGrad``
to ``gy``; no eltwise algorithm takes per-element slopes, so its kernel
multiplies ``gy`` by them with oneDNN's binary primitive, exactly as the
generic forward does (under ``'always'`` only, see :data:`GRAD_THRESHOLD`).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_intel64 import _capi
from catena_intel64.kernels.activation import _eltwise

THRESHOLD = 81920
"""Under ``use_ideep='auto'``, LeakyReLU runs on oneDNN from this many elements on
(the measured 2-thread crossover is about 70,000).
"""

GRAD_THRESHOLD = _eltwise.NO_CROSSOVER
"""Under ``use_ideep='auto'``, _LeakyReLUGrad stays on NumPy: the core computes its
coefficient in NumPy just before applying it, and the product on oneDNN then
reads that fresh array from another core's cache; measured with 2 threads it
was at best 6% faster than NumPy's multiply, often slower.
"""


def leaky_relu(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LeakyReLU.forward`` on oneDNN, or Fallback."""
    x, = inputs
    outputs = _eltwise.forward(node, x, 'leaky_relu', _capi.ELTWISE_RELU, float(node.slope),
                               0.0, THRESHOLD)
    if outputs is not Fallback:
        node.retain_inputs((0,))
    return outputs


def leaky_relu_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``_LeakyReLUGrad.forward`` (``gy * coefficient``) on oneDNN, or Fallback."""
    gy, = inputs
    return _eltwise.multiply(node, gy, node.coefficient, 'leaky_relu_grad', GRAD_THRESHOLD)


def registrations() -> list[tuple[type, Any, float]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import leaky_relu as nodes

    return [(nodes.LeakyReLU, leaky_relu, THRESHOLD),
            (nodes._LeakyReLUGrad, leaky_relu_grad, GRAD_THRESHOLD)]
