"""Shift of an optimizer attribute at given calls (:class:`MultistepShift`)."""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Sequence
from typing import Any

from catena.training.extensions import _shift


class MultistepShift(_shift.OptimizerShift):
    """Multiplies an optimizer attribute by ``gamma`` at each of the given calls.

    With ``step_value == (s1, s2, s3)``, the attribute is ``init`` before the
    ``s1``-th call, ``init * gamma`` from the ``s1``-th call,
    ``init * gamma ** 2`` from the ``s2``-th and ``init * gamma ** 3`` from
    the ``s3``-th on. Before training starts it is set to ``init``. The
    default trigger is every iteration.

    Args:
        attr: The name of the optimizer attribute to shift.
        gamma: The factor applied at each step.
        step_value: The calls at which a step happens, in ascending order.
        init: The start value; None takes the attribute's value when
            training starts.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.MultistepShift('lr', 0.1, (30000, 60000), init=0.1)
    """

    def __init__(self, attr: str, gamma: float, step_value: Sequence[int],
                 init: float | None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('MultistepShift', 'gamma', gamma)
        if isinstance(step_value, (str, bytes)) or not isinstance(step_value, Sequence):
            raise TypeError(f'MultistepShift: step_value must be a sequence of ints, '
                            f'got {type(step_value).__name__} ({step_value!r})')
        for index, step in enumerate(step_value):
            if isinstance(step, bool) or not isinstance(step, numbers.Integral):
                raise TypeError(f'MultistepShift: step_value[{index}] must be an int, '
                                f'got {type(step).__name__} ({step!r})')
        if any(later < earlier for earlier, later in zip(step_value, step_value[1:])):
            raise ValueError(f'MultistepShift: step_value must be in ascending order, '
                             f'got {step_value!r}')
        _shift.check_real('MultistepShift', 'init', init, optional=True)
        self._gamma = gamma
        self._step_value = tuple(step_value)
        self._init = init

    def _value_at(self, t: int) -> Any:
        # The number of steps passed follows from t alone, so a resumed run
        # needs no state beyond _t.
        steps = bisect.bisect_right(self._step_value, t)
        return self._init * self._gamma ** steps
