"""CuPy kernel of ``tanh``'s gradient, :class:`~catena.functions.activation.tanh.TanhGrad`.

``gx = gy * (1 - y * y)`` in one pass instead of the generic three, with
every operation rounded to the dtype as there. Like the generic forward it
retains both inputs. ``Tanh`` itself is one CuPy ``tanh`` generically, so it
has no kernel here.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

GRAD = Spec('catena_tanh_grad', 'T y, T gy', 'T gx', '''
T one = (T)1;
T square = mul_rn(y, y);
T slope = one - square;
gx = mul_rn(slope, gy);
''')

SPECS = (GRAD,)


def plan_grad(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of TanhGrad's forward, or Fallback unless ``y`` and ``gy`` match."""
    y, gy = inputs
    if y.dtype not in _elementwise.FLOAT_DTYPES or not _elementwise.same_arrays(y, gy):
        return Fallback
    return Launch(GRAD, (y, gy))


def grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``TanhGrad.forward`` in one CuPy kernel, or Fallback."""
    launch = plan_grad(node, inputs)
    if launch is Fallback:
        return Fallback
    gx = _elementwise.run(launch)
    node.retain_inputs((0, 1))
    return gx,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import tanh as nodes

    return [(nodes.TanhGrad, grad)]
