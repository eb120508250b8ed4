"""Fused update of M-SVAG (:class:`~catena.optimizers.msvag.MSVAGRule`).

The moving averages, the variance-adapted factor (0 where its denominator
is 0, clipped to [0, 1] elsewhere, NaN passing through as in ``clip``) and
the step with optional decoupled weight decay (a kernel of its own) in one
kernel launch instead of about twenty, rounded to the parameter's dtype
after each operation as in the generic code. The variance weight ``rho``
comes from the core's own function, so an invalid ``beta`` raises the same
:class:`ValueError`.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import msvag
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

_IN_PARAMS = 'T grad, T one_minus_beta, T debias, T one_minus_rho, T rho, T lr, T eta'

_FACTOR = '''
T zero = (T)0;
T one = (T)1;
T gap = grad - m;
T dm = mul_rn(gap, one_minus_beta);
m += dm;
T square = mul_rn(grad, grad);
T gap2 = square - v;
T dv = mul_rn(gap2, one_minus_beta);
v += dv;
T m_hat = mul_rn(m, debias);
T factor = mul_rn(m_hat, m_hat);
T v_hat = mul_rn(v, debias);
T spread = v_hat - factor;
T variance = spread / one_minus_rho;
T weighted = mul_rn(variance, rho);
T denominator = weighted + factor;
bool never_moved = denominator == zero;
T safe = never_moved ? one : denominator;
T ratio = factor / safe;
T clipped = ratio < zero ? zero : (ratio > one ? one : ratio);
T kept = never_moved ? zero : clipped;
T step = mul_rn(m_hat, lr);
T damped = mul_rn(step, kept);
'''

_APPLY = '''
T scaled = mul_rn(damped, eta);
param -= scaled;
'''

UPDATE = Spec('catena_msvag', _IN_PARAMS, 'T param, T m, T v', _FACTOR + _APPLY)

UPDATE_DECAY = Spec('catena_msvag_decay', _IN_PARAMS + ', T weight_decay_rate',
                    'T param, T m, T v', _FACTOR + '''
T decay = mul_rn(param, weight_decay_rate);
damped += decay;''' + _APPLY)
"""M-SVAG with ``weight_decay_rate != 0``: ``weight_decay_rate * param`` joins the step."""

SPECS = (UPDATE, UPDATE_DECAY)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one M-SVAG step, None without a gradient, or Fallback.

    Raises:
        ValueError: ``beta`` is not in [0, 1).
    """
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    hp = rule.hyperparam
    beta = hp.beta
    t = max(rule.t, 1)
    rho = msvag.variance_weight(beta, t)
    state = _update.state(rule, data, 'm', 'v')
    if state is None:
        return Fallback
    scalar = data.dtype.type
    inputs = (grad, scalar(1 - beta), scalar(1 / (1 - beta ** t)), scalar(1 - rho),
              scalar(rho), scalar(hp.lr), scalar(hp.eta))
    decay = hp.weight_decay_rate
    if decay != 0:
        return Launch(UPDATE_DECAY, (*inputs, scalar(decay)), (data, *state))
    return Launch(UPDATE, inputs, (data, *state))


update = _update.kernel(plan, 'One M-SVAG step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(msvag.MSVAGRule, update)]
