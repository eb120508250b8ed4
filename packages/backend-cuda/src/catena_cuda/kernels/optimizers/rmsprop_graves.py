"""Fused update of Graves's RMSprop (:class:`~catena.optimizers.rmsprop_graves.RMSpropGravesRule`).

The running mean ``g``, mean square ``n`` and momentum step ``delta`` in
one kernel launch instead of about fourteen, rounded to the parameter's
dtype after each operation as in the generic code.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import rmsprop_graves
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_rmsprop_graves', 'T grad, T lr, T alpha, T one_minus_alpha, T momentum, '
              'T eps', 'T param, T n, T g, T delta', '''
T square = mul_rn(grad, grad);
T weighted = mul_rn(square, one_minus_alpha);
T kept = mul_rn(n, alpha);
n = kept + weighted;
T g_kept = mul_rn(g, alpha);
T g_weighted = mul_rn(grad, one_minus_alpha);
g = g_kept + g_weighted;
T g_square = mul_rn(g, g);
T spread = n - g_square;
T shifted = spread + eps;
T denom = sqrt(shifted);
T scaled = mul_rn(grad, lr);
T step = scaled / denom;
T delta_kept = mul_rn(delta, momentum);
delta = delta_kept - step;
param += delta;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one RMSpropGraves step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'n', 'g', 'delta')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    scalar = data.dtype.type
    inputs = (grad, scalar(hp.lr), scalar(hp.alpha), scalar(1 - hp.alpha),
              scalar(hp.momentum), scalar(hp.eps))
    return Launch(UPDATE, inputs, (data, *state))


update = _update.kernel(plan, 'One RMSpropGraves step of ``param`` in one CuPy kernel, '
                              'or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(rmsprop_graves.RMSpropGravesRule, update)]
