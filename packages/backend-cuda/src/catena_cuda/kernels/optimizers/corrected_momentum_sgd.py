"""Fused update of :class:`~catena.optimizers.corrected_momentum_sgd.CorrectedMomentumSGDRule`.

``v = momentum * v - grad; param += lr * v`` in one kernel launch instead
of four, rounded to the parameter's dtype after each operation as in the
generic code.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import corrected_momentum_sgd
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_corrected_momentum_sgd', 'T grad, T lr, T momentum', 'T param, T v', '''
T decayed = mul_rn(v, momentum);
v = decayed - grad;
T step = mul_rn(v, lr);
param += step;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one corrected momentum SGD step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'v')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    scalar = data.dtype.type
    return Launch(UPDATE, (grad, scalar(hp.lr), scalar(hp.momentum)), (data, *state))


update = _update.kernel(plan, 'One corrected momentum SGD step of ``param`` in one CuPy '
                              'kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(corrected_momentum_sgd.CorrectedMomentumSGDRule, update)]
