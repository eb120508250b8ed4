"""CuPy kernels of ``elu``: the forward (:class:`ELU`) and its derivative (:class:`ELUGrad`).

Both repeat the generic forwards' operations in one pass, each rounded to
the dtype as there (the forward takes five passes generically, the
derivative three to six), so results, NaN and infinities included, are the
same (``elu(-inf)`` is ``-alpha``). Each kernel retains what its generic
forward retains.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise
from catena_cuda.kernels._elementwise import Launch, Spec

CONFIG_KEY = 'use_cupy_kernels'

FORWARD = Spec('catena_elu', 'T x, T alpha', 'T y', '''
T zero = (T)0;
T negative = x > zero ? zero : x;
T positive = x < zero ? zero : x;
T grown = expm1(negative);
T scaled = mul_rn(grown, alpha);
y = scaled + positive;
''')
"""``x >= 0 ? x : alpha * expm1(x)``, as ``alpha * expm1(min(x, 0)) + max(x, 0)``."""

GRAD = Spec('catena_elu_grad', 'T x, T alpha', 'T dydx', '''
T zero = (T)0;
T negative = x > zero ? zero : x;
T grown = exp(negative);
dydx = mul_rn(grown, alpha);
''')
"""The derivative for ``alpha == 1``: ``alpha * exp(min(x, 0))``."""

GRAD_SCALED = Spec('catena_elu_grad_scaled', 'T x, T alpha, T rest', 'T dydx', '''
T zero = (T)0;
T one = (T)1;
T negative = x > zero ? zero : x;
T grown = exp(negative);
T scaled = mul_rn(grown, alpha);
T indicator = x >= zero ? one : zero;
T offset = mul_rn(indicator, rest);
dydx = scaled + offset;
''')
"""The derivative for ``alpha != 1``: ``alpha * exp(min(x, 0)) + (x >= 0) * (1 - alpha)``."""

SPECS = (FORWARD, GRAD, GRAD_SCALED)


def plan(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of ELU's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    return Launch(FORWARD, (x, x.dtype.type(node.alpha)))


def plan_grad(node: Any, inputs: tuple[Any, ...]) -> Launch | Any:
    """The launch of ELUGrad's forward, or Fallback for a dtype the kernel lacks."""
    x, = inputs
    if x.dtype not in _elementwise.FLOAT_DTYPES:
        return Fallback
    cast = x.dtype.type
    if node.alpha == 1:
        return Launch(GRAD, (x, cast(node.alpha)))
    return Launch(GRAD_SCALED, (x, cast(node.alpha), cast(1 - node.alpha)))


def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ELU.forward`` in one CuPy kernel, or Fallback."""
    launch = plan(node, inputs)
    if launch is Fallback:
        return Fallback
    y = _elementwise.run(launch)
    node.retain_inputs((0,))
    return y,


def grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ELUGrad.forward`` in one CuPy kernel, or Fallback."""
    launch = plan_grad(node, inputs)
    if launch is Fallback:
        return Fallback
    dydx = _elementwise.run(launch)
    node.retain_inputs((0,))
    node.retain_outputs((0,))
    return dydx,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.activation import elu as nodes

    return [(nodes.ELU, forward), (nodes.ELUGrad, grad)]
