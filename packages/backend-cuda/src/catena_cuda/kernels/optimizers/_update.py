"""What the fused optimizer updates share: reading a parameter and its state, the kernel.

A module describes its update as ``plan(rule, param)``: plain Python that
reads ``rule.hyperparam`` and ``rule.state`` as the core's
``update_core_cpu`` does and returns a :class:`~._elementwise.Launch` whose
outputs are the parameter and state arrays (updated in place), None when
there is nothing to do (no gradient), or :data:`~catena.Fallback`.
:func:`kernel` turns it into the registered kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _elementwise

Plan = Callable[[Any, Any], Any]


def arrays(param: Any) -> tuple[Any, Any] | None | Any:
    """Returns ``(data, grad)`` of a parameter the kernels can update.

    Args:
        param: The parameter (a :class:`~catena.Variable`).

    Returns:
        ``(data, grad)``; None when the gradient is None (the update is a
        no-op); Fallback for a dtype the kernels lack or a gradient of
        another dtype, shape or array type.
    """
    grad = param.grad
    if grad is None:
        return None
    data = param.array
    if data.dtype not in _elementwise.FLOAT_DTYPES or not _elementwise.same_arrays(data, grad):
        return Fallback
    return data, grad


def state(rule: Any, data: Any, *names: str) -> tuple[Any, ...] | None:
    """Returns the state arrays ``names`` of ``rule``, or None unless all are like ``data``.

    Args:
        rule: The update rule.
        data: The parameter's array.
        names: The state keys, in the order the kernel takes them.
    """
    current = rule.state or {}
    found = tuple(current.get(name) for name in names)
    if not _elementwise.same_arrays(data, *found):
        return None
    return found


def kernel(plan: Plan, doc: str) -> Callable[[Any, tuple[Any, ...]], Any]:
    """Makes the kernel registered for an update rule from its ``plan``.

    Args:
        plan: ``plan(rule, param)``, see the module's docstring.
        doc: The kernel's docstring.

    Returns:
        ``update(rule, (param,))``: updates the parameter in place with one
        kernel launch and returns None, or returns Fallback.
    """
    def update(rule: Any, inputs: tuple[Any, ...]) -> Any:
        param, = inputs
        launch = plan(rule, param)
        if launch is None or launch is Fallback:
            return launch
        _elementwise.run(launch)
        return None

    update.__doc__ = doc
    return update
