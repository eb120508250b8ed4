"""CuPy kernel of the forward of ``clipped_relu`` (:class:`ClippedReLU`).

``y = x < 0 ? 0 : (x > z ? z : x)`` in one pass: CuPy's own ``clip``
formula, so NaN stays NaN as in the generic ``clip(x, 0, z)``. Like the
generic forward it retains its input. The gradient, ``ClippedReLUGrad2``,
multiplies ``gy`` by a mask that the core's backward has already computed:
one pass either way, so it has no kernel here.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

FORWARD = Spec('catena_clipped_relu', 'T x, T cap', 'T y', '''
T zero = (T)0;
y = x < zero ? zero : (x > cap ? cap : x);
''')

SPECS = (FORWARD,)


def plan(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of ClippedReLU's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    return Launch(FORWARD, (x, x.dtype.type(node.cap)))


def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ClippedReLU.forward`` in one CuPy kernel, or Fallback."""
    launch = plan(node, inputs)
    if launch is Fallback:
        return Fallback
    y = _elementwise.run(launch)
    node.retain_inputs((0,))
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import clipped_relu as nodes

    return [(nodes.ClippedReLU, forward)]
