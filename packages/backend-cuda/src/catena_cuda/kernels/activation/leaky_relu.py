"""CuPy kernel of the forward of ``leaky_relu`` (:class:`LeakyReLU`).

The generic forward takes ``s = slope * x`` (rounded to the dtype) and then
``maximum(x, s)`` for a slope up to 1, ``minimum(x, s)`` for a steeper one:
two passes, fused here into one. The comparisons pass NaN through as
NumPy's and CuPy's ``maximum``/``minimum`` do, including the NaN of
``0 * inf`` for a zero slope. Like the generic forward it retains its input.
The gradient, ``_LeakyReLUGrad``, multiplies ``gy`` by a coefficient that
the core's backward has already computed: one pass either way, so it has no
kernel here.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

MAXIMUM = Spec('catena_leaky_relu_max', 'T x, T slope', 'T y', '''
T scaled = mul_rn(x, slope);
y = (x < scaled || scaled != scaled) ? scaled : x;
''')
"""For ``slope <= 1``: ``maximum(x, slope * x)``."""

MINIMUM = Spec('catena_leaky_relu_min', 'T x, T slope', 'T y', '''
T scaled = mul_rn(x, slope);
y = (scaled < x || scaled != scaled) ? scaled : x;
''')
"""For ``slope > 1``: ``minimum(x, slope * x)``."""

SPECS = (MAXIMUM, MINIMUM)


def plan(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of LeakyReLU's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    spec = MAXIMUM if node.slope <= 1 else MINIMUM
    return Launch(spec, (x, x.dtype.type(node.slope)))


def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``LeakyReLU.forward`` in one CuPy kernel, or Fallback."""
    launch = plan(node, inputs)
    if launch is Fallback:
        return Fallback
    y = _elementwise.run(launch)
    node.retain_inputs((0,))
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import leaky_relu as nodes

    return [(nodes.LeakyReLU, forward)]
