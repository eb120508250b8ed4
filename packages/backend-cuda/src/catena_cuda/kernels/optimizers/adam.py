"""Fused update of Adam and its variants (:class:`~catena.optimizers.adam.AdamRule`).

One kernel launch does the whole step that the generic ``update_core_cpu``
does in about fifteen CuPy calls, operation for operation: the moments, the
bias-corrected step size ``alpha_t``, AdaBound's clipping (with infinite
bounds when it is off, which leaves the step unchanged), ``eta`` and the
decoupled weight decay (a factor of exactly 1 when off). Float16 parameters
are stepped in float32 (``W``) with float16 state, as in the core. AMSGrad
has its own kernel, which also updates ``vhat``.

The errors are the core's: a nonzero ``eps`` that rounds to 0 in the work
dtype raises :class:`ValueError`; ``alpha_t`` and ``bounds`` raise before
the first update. The first step after ``amsgrad`` is switched on for a
rule whose state lacks ``vhat`` falls back to the generic code, which
creates it.
"""

from __future__ import annotations

import math
from typing import Any

from catena.backends import Fallback
from catena.optimizers import adam
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

_IN_PARAMS = ('T grad, W one_minus_beta1, W one_minus_beta2, W eps, W alpha_t, W lower, '
              'W upper, W eta, T keep')

_MOMENTS = '''
W gap = (W)grad - (W)m;
W dm = mul_rn(gap, one_minus_beta1);
m = (T)((W)m + dm);
W square = mul_rn((W)grad, (W)grad);
W gap2 = square - (W)v;
W dv = mul_rn(gap2, one_minus_beta2);
v = (T)((W)v + dv);
'''

_STEP = '''
W denom = root + eps;
W rate = alpha_t / denom;
W bounded = rate < lower ? lower : (rate > upper ? upper : rate);
W step = mul_rn(bounded, (W)m);
W scaled = mul_rn(step, eta);
T decayed = mul_rn(param, keep);
param = (T)((W)decayed - scaled);
'''

UPDATE = Spec('catena_adam', _IN_PARAMS, 'T param, T m, T v',
              _MOMENTS + 'W root = sqrt((W)v);' + _STEP)

UPDATE_AMSGRAD = Spec('catena_adam_amsgrad', _IN_PARAMS, 'T param, T m, T v, T vhat',
                      _MOMENTS + '''
vhat = (vhat >= v || vhat != vhat) ? vhat : v;
W root = sqrt((W)vhat);''' + _STEP)
"""Adam with ``amsgrad``: the step uses ``vhat = maximum(vhat, v)`` (NaN passes)."""

SPECS = (UPDATE, UPDATE_AMSGRAD)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one Adam step of ``param``, None without a gradient, or Fallback.

    Raises:
        ValueError: A nonzero ``eps`` is 0 in the work dtype.
    """
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    hp = rule.hyperparam
    work = adam.work_dtype(data.dtype)
    scalar = work.type
    eps = scalar(hp.eps)
    if eps == 0 and hp.eps != 0:
        raise ValueError(f'eps of Adam ({hp.eps}) is too small for {work.name}: it rounds '
                         'to 0')
    amsgrad = bool(hp.amsgrad)
    state = _update.state(rule, data, *(('m', 'v', 'vhat') if amsgrad else ('m', 'v')))
    if state is None:
        return Fallback
    alpha_t = rule.alpha_t
    if hp.adabound:
        if rule.initial_alpha is None:
            rule.initial_alpha = hp.alpha
        lower, upper = rule.bounds
    else:
        lower, upper = -math.inf, math.inf
    eta = hp.eta
    decay = hp.weight_decay_rate
    keep = data.dtype.type(1.0 if decay == 0 else 1.0 - eta * decay)
    inputs = (grad, scalar(1.0 - hp.beta1), scalar(1.0 - hp.beta2), eps, scalar(alpha_t),
              scalar(lower), scalar(upper), scalar(eta), keep)
    return Launch(UPDATE_AMSGRAD if amsgrad else UPDATE, inputs, (data, *state), work)


update = _update.kernel(plan, 'One Adam step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(adam.AdamRule, update)]
