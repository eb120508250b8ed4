"""What the optimizer hooks share: argument checks, loss-scale handling, base classes."""

from __future__ import annotations

import numbers
from typing import Any

from catena import backend


def real_argument(name: str, value: Any, *, minimum: float | None = None,
                  positive: bool = False) -> float:
    """Checks that a hook's constructor argument is a real number in range.

    Args:
        name: The argument's name, for the error message.
        value: The value given.
        minimum: The smallest allowed value (inclusive), or None.
        positive: Whether the value must be strictly greater than 0.

    Returns:
        The value as a Python float.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: ``value`` is out of range (or NaN).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'{name} must be a real number, got {type(value).__name__}')
    value = float(value)
    if positive and not value > 0:
        raise ValueError(f'{name} must be positive, got {value!r}')
    if minimum is not None and not value >= minimum:
        raise ValueError(f'{name} must be at least {minimum}, got {value!r}')
    if value != value:
        raise ValueError(f'{name} must not be NaN')
    return value


def loss_scale_of(param: Any) -> float:
    """The factor the gradient of ``param`` is still multiplied by (1 without loss scaling).

    Before the update rule divides it out, a gradient computed with a loss
    scale carries that scale (``param._loss_scale``).
    """
    scale = param._loss_scale
    return 1.0 if scale is None else float(scale)


def add_scaled(grad: Any, coefficient: float, term: Any) -> None:
    """``grad += coefficient * term`` in place, the coefficient cast to the gradient's dtype."""
    grad += grad.dtype.type(coefficient) * term


class ParamHook:
    """Base of the hooks that adjust each parameter's gradient before its update.

    Registered with :meth:`catena.Optimizer.add_hook` such a hook is called
    for every parameter, as ``hook(rule, param)``; registered with
    :meth:`catena.UpdateRule.add_hook`, for that rule's parameter only.
    Subclasses implement :meth:`adjust`.

    Attributes:
        timing (str): ``'pre'``: it runs before the update.
        call_for_each_param (bool): True: called as ``hook(rule, param)``.
    """

    name: str
    call_for_each_param = True
    timing = 'pre'

    def __call__(self, rule: Any, param: Any) -> None:
        """Adjusts the gradient of ``param`` in place (a parameter without one is left alone).

        Args:
            rule: The parameter's update rule.
            param: The parameter.
        """
        if param.array is None:
            return
        grad = param.grad
        if grad is None:
            return
        with backend.using_device(param.device):
            self.adjust(rule, param.array, grad, loss_scale_of(param))

    def adjust(self, rule: Any, array: Any, grad: Any, scale: float) -> None:
        """Changes ``grad`` in place, on the parameter's device.

        Args:
            rule: The parameter's update rule.
            array: The parameter's values.
            grad: Its gradient.
            scale: The loss scale the gradient still carries (1 without loss scaling).
        """
        raise NotImplementedError


class PenaltyHook(ParamHook):
    """Base of the hooks that add a penalty's gradient: ``g += rate * penalty_grad(w)``.

    While a gradient still carries a loss scale the added term is scaled
    with it, so loss scaling does not change the result.

    Args:
        rate: The coefficient of the penalty (at least 0).

    Attributes:
        rate (float): The coefficient.
    """

    def __init__(self, rate: float) -> None:
        self.rate = real_argument('rate', rate, minimum=0)

    def adjust(self, rule: Any, array: Any, grad: Any, scale: float) -> None:
        """Adds ``rate * penalty_grad(array)`` to ``grad``."""
        add_scaled(grad, self.rate * scale, self.penalty_grad(array))

    def penalty_grad(self, array: Any) -> Any:
        """The gradient of the penalty (without ``rate``) at the parameter ``array``."""
        raise NotImplementedError
