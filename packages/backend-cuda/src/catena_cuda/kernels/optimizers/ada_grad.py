"""Fused update of AdaGrad (:class:`~catena.optimizers.ada_grad.AdaGradRule`).

``h += grad ** 2; param -= lr * grad / (sqrt(h) + eps)`` in one kernel
launch instead of six, rounded to the parameter's dtype after each
operation as in the generic code.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import ada_grad
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_ada_grad', 'T grad, T lr, T eps', 'T param, T h', '''
T square = mul_rn(grad, grad);
h += square;
T root = sqrt(h);
T denom = root + eps;
T scaled = mul_rn(grad, lr);
T step = scaled / denom;
param -= step;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one AdaGrad step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'h')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    scalar = data.dtype.type
    return Launch(UPDATE, (grad, scalar(hp.lr), scalar(hp.eps)), (data, *state))


update = _update.kernel(plan, 'One AdaGrad step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(ada_grad.AdaGradRule, update)]
