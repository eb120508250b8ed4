"""Linear warm-up of an optimizer attribute (:class:`WarmupShift`)."""

from __future__ import annotations

from typing import Any

from catena.training.extensions import _shift


class WarmupShift(_shift.OptimizerShift):
    """Raises an optimizer attribute linearly to its configured value at the start.

    The attribute is set to ``warmup_start`` before training and to
    ``warmup_start + (init - warmup_start) * t / warmup_iter`` after the
    ``t``-th call, reaching ``init`` at ``t == warmup_iter``; after that the
    extension leaves the attribute alone (so another shift may take over).
    The default trigger is every iteration.

    Args:
        attr: The name of the optimizer attribute to adjust.
        warmup_start: The value at the start of training.
        warmup_iter: The number of calls over which the value goes from
            ``warmup_start`` to ``init``.
        init: The value reached at the end of the warm-up; None takes the
            attribute's value when training starts.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.WarmupShift('lr', 0.001, warmup_iter=500)
    """

    def __init__(self, attr: str, warmup_start: float, warmup_iter: int,
                 init: float | None = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        _shift.check_real('WarmupShift', 'warmup_start', warmup_start)
        _shift.check_positive_int('WarmupShift', 'warmup_iter', warmup_iter)
        _shift.check_real('WarmupShift', 'init', init, optional=True)
        self._init = init
        self._warmup_start = warmup_start
        self._warmup_iter = warmup_iter

    def _start_value(self, current: Any) -> Any:
        super()._start_value(current)
        return self._warmup_start

    def _value_at(self, t: int) -> Any:
        if t > self._warmup_iter:
            return None
        return (self._warmup_start
                + (self._init - self._warmup_start) * t / self._warmup_iter)
