"""Fused update of AdaDelta (:class:`~catena.optimizers.ada_delta.AdaDeltaRule`).

The running averages ``msg`` and ``msdx`` and the step
``sqrt((msdx + eps) / (msg + eps)) * grad`` in one kernel launch instead of
about twelve, rounded to the parameter's dtype after each operation as in
the generic code.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import ada_delta
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_ada_delta', 'T grad, T rho, T one_minus_rho, T eps',
              'T param, T msg, T msdx', '''
T square = mul_rn(grad, grad);
T weighted = mul_rn(square, one_minus_rho);
T kept = mul_rn(msg, rho);
msg = kept + weighted;
T numerator = msdx + eps;
T denominator = msg + eps;
T ratio = numerator / denominator;
T root = sqrt(ratio);
T dx = mul_rn(root, grad);
T dx_square = mul_rn(dx, dx);
T dx_weighted = mul_rn(dx_square, one_minus_rho);
T dx_kept = mul_rn(msdx, rho);
msdx = dx_kept + dx_weighted;
param -= dx;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one AdaDelta step, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    state = _update.state(rule, data, 'msg', 'msdx')
    if state is None:
        return Fallback
    hp = rule.hyperparam
    scalar = data.dtype.type
    inputs = (grad, scalar(hp.rho), scalar(1 - hp.rho), scalar(hp.eps))
    return Launch(UPDATE, inputs, (data, *state))


update = _update.kernel(plan, 'One AdaDelta step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(ada_delta.AdaDeltaRule, update)]
