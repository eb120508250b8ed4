"""Fused update of Nesterov's accelerated gradient (:class:`NesterovAGRule`).

``v = momentum * v - lr * grad; param += momentum ** 2 * v - (1 + momentum)
* lr * grad`` in one kernel launch instead of six, rounded to the
parameter's dtype after each operation as in the generic code (which adds
the two terms to the parameter one after the other).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import nesterov_ag
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_nesterov_ag',
              'T grad, T lr, T momentum, T momentum_squared, T lookahead_lr', 'T param, T v', '''
T step = mul_rn(grad, lr);
T decayed = mul_rn(v, momentum);
v = decayed - step;
T ahead = mul_rn(v, momentum_squared);
param += ahead;
T back = mul_rn(grad, lookahead_lr);
param -= back;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one Nesterov step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'v')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    lr, momentum = hp.lr, hp.momentum
    scalar = data.dtype.type
    inputs = (grad, scalar(lr), scalar(momentum), scalar(momentum * momentum),
              scalar((1 + momentum) * lr))
    return Launch(UPDATE, inputs, (data, *state))


update = _update.kernel(plan, 'One Nesterov step of ``param`` in one CuPy kernel, '
                              'or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(nesterov_ag.NesterovAGRule, update)]
