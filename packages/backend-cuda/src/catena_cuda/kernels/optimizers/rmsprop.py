"""Fused update of RMSprop (:class:`~catena.optimizers.rmsprop.RMSpropRule`).

The running mean square and the step ``lr * grad / (sqrt(ms) + eps)`` (or
``/ sqrt(ms + eps)`` with ``eps_inside_sqrt``, a kernel of its own) in one
kernel launch instead of eight, rounded to the parameter's dtype after each
operation as in the generic code. As there, a nonzero ``eps`` that is 0 in
the parameter's dtype raises :class:`ValueError`.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import rmsprop
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

_IN_PARAMS = 'T grad, T lr, T alpha, T one_minus_alpha, T eps'

_MEAN_SQUARE = '''
T square = mul_rn(grad, grad);
T weighted = mul_rn(square, one_minus_alpha);
T kept = mul_rn(ms, alpha);
ms = kept + weighted;
'''

_STEP = '''
T scaled = mul_rn(grad, lr);
T step = scaled / denom;
param -= step;
'''

UPDATE = Spec('catena_rmsprop', _IN_PARAMS, 'T param, T ms', _MEAN_SQUARE + '''
T root = sqrt(ms);
T denom = root + eps;''' + _STEP)
"""``eps`` added to the root: ``lr * grad / (sqrt(ms) + eps)``."""

UPDATE_EPS_INSIDE = Spec('catena_rmsprop_eps_inside', _IN_PARAMS, 'T param, T ms',
                         _MEAN_SQUARE + '''
T shifted = ms + eps;
T denom = sqrt(shifted);''' + _STEP)
"""``eps`` under the root: ``lr * grad / sqrt(ms + eps)``."""

SPECS = (UPDATE, UPDATE_EPS_INSIDE)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one RMSprop step, None without a gradient, or Fallback.

    Raises:
        ValueError: A nonzero ``eps`` is 0 in the parameter's dtype.
    """
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    hp = rule.hyperparam
    dtype = data.dtype
    scalar = dtype.type
    eps = scalar(hp.eps)
    if hp.eps != 0 and eps == 0:
        raise ValueError(f'eps of RMSprop is too small for {dtype.name}: {hp.eps!r} '
                         f'rounds to 0; use a larger eps or use_fp32_update()')
    state = _update.state(rule, data, 'ms')
    if state is None:
        return Fallback
    spec = UPDATE_EPS_INSIDE if hp.eps_inside_sqrt else UPDATE
    inputs = (grad, scalar(hp.lr), scalar(hp.alpha), scalar(1 - hp.alpha), eps)
    return Launch(spec, inputs, (data, *state))


update = _update.kernel(plan, 'One RMSprop step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(rmsprop.RMSpropRule, update)]
