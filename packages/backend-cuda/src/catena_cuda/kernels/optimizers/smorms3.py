"""Fused update of SMORMS3 (:class:`~catena.optimizers.smorms3.SMORMS3Rule`).

The memory ``mem``, the averages ``g`` and ``g2`` and the capped step in
one kernel launch instead of about eighteen, rounded to the parameter's
dtype after each operation as in the generic code (``minimum(x, lr)``
passes NaN through as NumPy's and CuPy's do).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import smorms3
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_smorms3', 'T grad, T lr, T eps', 'T param, T mem, T g, T g2', '''
T one = (T)1;
T shifted = mem + one;
T rate = one / shifted;
T keep = one - rate;
T g_kept = mul_rn(g, keep);
T weighted = mul_rn(rate, grad);
g = g_kept + weighted;
T g2_kept = mul_rn(g2, keep);
T weighted_square = mul_rn(weighted, grad);
g2 = g2_kept + weighted_square;
T g_square = mul_rn(g, g);
T g2_shifted = g2 + eps;
T x = g_square / g2_shifted;
T capped = (x <= lr || x != x) ? x : lr;
T step = mul_rn(capped, grad);
T root = sqrt(g2);
T denom = root + eps;
T scaled = step / denom;
param -= scaled;
T forget = one - x;
T mem_kept = mul_rn(mem, forget);
mem = mem_kept + one;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one SMORMS3 step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'mem', 'g', 'g2')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    scalar = data.dtype.type
    return Launch(UPDATE, (grad, scalar(hp.lr), scalar(hp.eps)), (data, *state))


update = _update.kernel(plan, 'One SMORMS3 step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(smorms3.SMORMS3Rule, update)]
