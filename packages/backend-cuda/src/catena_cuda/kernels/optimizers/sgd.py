"""Fused update of plain SGD (:class:`~catena.optimizers.sgd.SGDRule`).

``param -= lr * grad`` in one kernel launch instead of two, rounded to the
parameter's dtype after each operation as in the generic code.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.optimizers import sgd
from catena_cuda.kernels._elementwise import Launch, Spec
from catena_cuda.kernels.optimizers import _update

CONFIG_KEY = 'use_cupy_kernels'

UPDATE = Spec('catena_sgd', 'T grad, T lr', 'T param', '''
T step = mul_rn(grad, lr);
param -= step;
''')

SPECS = (UPDATE,)


def plan(rule: Any, param: Any) -> Launch | None | Any:
    """The launch of one SGD step of ``param``, None without a gradient, or Fallback."""
    found = _update.arrays(param)
    if found is None or found is Fallback:
        return found
    data, grad = found
    return Launch(UPDATE, (grad, data.dtype.type(rule.hyperparam.lr)), (data,))


update = _update.kernel(plan, 'One SGD step of ``param`` in one CuPy kernel, or Fallback.')


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the update rule class they implement."""
    return [(sgd.SGDRule, update)]
