"""CuPy kernels of ``sigmoid``: the forward (:class:`Sigmoid`) and :class:`SigmoidGrad`.

The forward computes ``0.5 * tanh(0.5 * x) + 0.5`` (never overflowing) as
the generic forward does, in one pass instead of four; the gradient
``gy * y * (1 - y)`` in one pass instead of three. Every operation is
rounded to the dtype as in the generic path, so the results agree, NaN and
infinities included. Each kernel retains what its generic forward retains.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

FORWARD = Spec('catena_sigmoid', 'T x', 'T y', '''
T center = (T)0.5;
T halved = mul_rn(x, center);
T bent = tanh(halved);
T scaled = mul_rn(bent, center);
y = scaled + center;
''')

GRAD = Spec('catena_sigmoid_grad', 'T y, T gy', 'T gx', '''
T one = (T)1;
T complement = one - y;
T slope = mul_rn(complement, y);
gx = mul_rn(slope, gy);
''')

SPECS = (FORWARD, GRAD)


def plan(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of Sigmoid's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    return Launch(FORWARD, (x,))


def plan_grad(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of SigmoidGrad's forward, or Fallback unless ``y`` and ``gy`` match."""
    y, gy = inputs
    if y.dtype not in _elementwise.FLOAT_DTYPES or not _elementwise.same_arrays(y, gy):
        return Fallback
    return Launch(GRAD, (y, gy))


def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Sigmoid.forward`` in one CuPy kernel, or Fallback."""
    launch = plan(node, inputs)
    if launch is Fallback:
        return Fallback
    y = _elementwise.run(launch)
    node.retain_outputs((0,))
    return y,


def grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``SigmoidGrad.forward`` in one CuPy kernel, or Fallback."""
    launch = plan_grad(node, inputs)
    if launch is Fallback:
        return Fallback
    gx = _elementwise.run(launch)
    node.retain_inputs((0, 1))
    return gx,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import sigmoid as nodes

    return [(nodes.Sigmoid, forward), (nodes.SigmoidGrad, grad)]
