"""One-pass update steps on CPU arrays, from :mod:`catena._cupdate` when it is built.

Each function updates its arrays in place and returns True, or returns False
without touching them when it cannot: the compiled module is missing or
``CATENA_ENGINE=python`` asked for pure Python, or the arrays are not all
float32 (or all float64) NumPy arrays of one size, C-contiguous and not
overlapping. The caller then runs its NumPy code, which computes the same
values: the loops round after every operation in the arrays' dtype, in the
order the NumPy code does.
"""

from __future__ import annotations

from typing import Any

from catena import _compiled as compiled_kernels

_compiled = compiled_kernels.load('_cupdate')


def sgd(param: Any, grad: Any, lr: float) -> bool:
    """``param -= lr * grad``."""
    return _compiled is not None and bool(_compiled.sgd(param, grad, lr))


def momentum_sgd(param: Any, velocity: Any, grad: Any, lr: float, momentum: float) -> bool:
    """``velocity = momentum * velocity - lr * grad; param += velocity``."""
    return (_compiled is not None
            and bool(_compiled.momentum_sgd(param, velocity, grad, lr, momentum)))


def adam(param: Any, m: Any, v: Any, grad: Any, *, beta1: float, beta2: float,
         alpha_t: float, eps: float, eta: float, weight_decay_rate: float) -> bool:
    """One step of plain Adam (neither AMSGrad nor AdaBound), as :class:`AdamRule` computes it."""
    return _compiled is not None and bool(_compiled.adam(
        param, m, v, grad, 1.0 - beta1, 1.0 - beta2, alpha_t, eps, eta,
        1.0 - eta * weight_decay_rate if weight_decay_rate != 0 else 1.0))
