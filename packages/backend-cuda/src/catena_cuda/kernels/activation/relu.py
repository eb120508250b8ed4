"""CuPy kernel of ``relu``'s forward, :class:`~catena.functions.activation.relu.ReLU`.

``y = x < 0 ? 0 : x`` in one pass, which keeps NaN as the generic
``clip(x, 0, inf)`` does. Like the generic forward it retains its output.
The gradient, ``ReLUGrad2``, multiplies ``gy`` by a 0/1 coefficient that
the core's backward has already computed: one pass either way, so it has no
kernel here.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

FORWARD = Spec('catena_relu', 'T x', 'T y', '''
T zero = (T)0;
y = x < zero ? zero : x;
''')

SPECS = (FORWARD,)


def plan(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of ReLU's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    return Launch(FORWARD, (x,))


def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ReLU.forward`` in one CuPy kernel, or Fallback."""
    launch = plan(node, inputs)
    if launch is Fallback:
        return Fallback
    y = _elementwise.run(launch)
    node.retain_outputs((0,))
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import relu as nodes

    return [(nodes.ReLU, forward)]
