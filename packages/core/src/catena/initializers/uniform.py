"""Uniform initializers: Uniform, LeCunUniform, GlorotUniform and HeUniform."""

from __future__ import annotations

from typing import Any

from catena.initializers._base import Initializer, _fill_random, _scaled_std


def _fill_uniform(array: Any, bound: float, rng: Any) -> None:
    _fill_random(array, rng, 'uniform', low=-bound, high=bound)


class Uniform(Initializer):
    """Fills the array with draws from the uniform distribution on ``[-scale, scale]``.

    Args:
        scale: The half-width of the interval.
        dtype: The dtype the initializer produces.
        rng: A random generator with a ``uniform`` method (``numpy.random``
            style); None draws from the array module's ``random``.
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        _fill_uniform(array, self.scale, self.rng)


class _FanScaledUniform(Initializer):
    """Uniform on ``[-s, s]`` with ``s = scale * sqrt(gain / fan)``.

    Subclasses choose the fan (``_fan``: 'fan_in' or 'fan_avg') and ``_gain``.
    """

    _fan = 'fan_in'
    _gain = 3.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        bound = _scaled_std(type(self).__name__, array.shape, self._fan, self.scale, self._gain)
        _fill_uniform(array, bound, self.rng)


class LeCunUniform(_FanScaledUniform):
    """Uniform on ``[-s, s]`` with ``s = scale * sqrt(3 / fan_in)``.

    Args:
        scale: A factor on the half-width.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """


class GlorotUniform(_FanScaledUniform):
    """Uniform on ``[-s, s]`` with ``s = scale * sqrt(6 / (fan_in + fan_out))``.

    Args:
        scale: A factor on the half-width.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """

    _fan = 'fan_avg'


class HeUniform(_FanScaledUniform):
    """Uniform on ``[-s, s]`` with ``s = scale * sqrt(6 / fan_in)``.

    Args:
        scale: A factor on the half-width.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """

    _gain = 6.0
