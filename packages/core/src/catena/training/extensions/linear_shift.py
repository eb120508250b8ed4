"""Linear shift of an optimizer attribute within a range of calls (:class:`LinearShift`)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from catena.training.extensions import _shift


def _pair(name: str, value: Any) -> tuple[Any, Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise TypeError(f'LinearShift: {name} must be a pair (first, last), got {value!r}')
    return value[0], value[1]


class LinearShift(_shift.OptimizerShift):
    """Moves an optimizer attribute linearly from one value to another.

    With ``value_range == (v1, v2)`` and ``time_range == (t1, t2)``, the
    attribute is ``v1`` up to the ``t1``-th call, goes linearly to ``v2`` by
    the ``t2``-th call and stays ``v2`` afterwards; a typical use is warming
    up the momentum. Before training starts (call 0) the attribute is set by
    the same rule. The default trigger is every iteration.

    Args:
        attr: The name of the optimizer attribute to adjust.
        value_range: The first and the last values ``(v1, v2)``.
        time_range: The calls ``(t1, t2)`` between which the value moves,
            with ``t1 <= t2``.
        optimizer: The optimizer to adjust; None for the updater's
            ``'main'`` optimizer.

    .. admonition:: Example

        >>> from catena.training import extensions
        >>> shift = extensions.LinearShift('momentum', (0.5, 0.9), (0, 1000))
    """

    def __init__(self, attr: str, value_range: tuple[float, float],
                 time_range: tuple[int, int], optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        first, last = _pair('value_range', value_range)
        _shift.check_real('LinearShift', 'value_range[0]', first)
        _shift.check_real('LinearShift', 'value_range[1]', last)
        start, stop = _pair('time_range', time_range)
        for index, count in enumerate((start, stop)):
            if isinstance(count, bool) or not isinstance(count, numbers.Integral):
                raise TypeError(f'LinearShift: time_range[{index}] must be an int, '
                                f'got {type(count).__name__} ({count!r})')
        if start > stop:
            raise ValueError(f'LinearShift: time_range must be (t1, t2) with t1 <= t2, '
                             f'got {time_range!r}')
        self._value_range = value_range
        self._time_range = time_range

    def _start_value(self, current: Any) -> Any:
        return self._value_at(0)

    def _value_at(self, t: int) -> Any:
        start, stop = self._time_range
        first, last = self._value_range
        if t <= start:
            return first
        if t >= stop:
            return last
        return first + (t - start) / (stop - start) * (last - first)
