"""Checks of the hyperparameters given to the optimizers and their update rules."""

from __future__ import annotations

from typing import Any

from catena.utils import _validate


def check(who: str, *, rule: bool = False, **values: Any) -> None:
    """Checks numeric hyperparameters before an optimizer or a rule stores them.

    Every numeric hyperparameter (learning rates, momenta, decay rates, eps,
    eta, weight decay, ...) must be a real number of at least 0. Momenta and
    decay rates are not bounded by 1: Chainer accepts values above it (its
    own tests set ``default + 0.1``).

    Args:
        who: The class named in the message.
        rule: True for an update rule, whose None means "the parent's value";
            an optimizer needs every value.
        values: The hyperparameters, by name.

    Raises:
        TypeError: If a value is not a real number (a string, a bool; None
            for an optimizer).
        ValueError: If a value is NaN or negative.
    """
    for name, value in values.items():
        _validate.real(who, name, value, 0, optional=rule)
