"""Gaussian initializers: Normal, LeCunNormal, GlorotNormal and HeNormal."""

from __future__ import annotations

from typing import Any

from catena.initializers._base import Initializer, _fill_random, _scaled_std


def _fill_normal(array: Any, std: float, rng: Any) -> None:
    _fill_random(array, rng, 'normal', loc=0.0, scale=std)


class Normal(Initializer):
    """Fills the array with draws from a Gaussian of mean 0 and std ``scale``.

    Args:
        scale: The standard deviation.
        dtype: The dtype the initializer produces.
        rng: A random generator with a ``normal`` method (``numpy.random``
            style); None draws from the array module's ``random``.
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        _fill_normal(array, self.scale, self.rng)


class _FanScaledNormal(Initializer):
    """Gaussian with std ``scale * sqrt(gain / fan)``.

    Subclasses choose the fan (``_fan``: 'fan_in', 'fan_out' or 'fan_avg') and ``_gain``.
    """

    _fan = 'fan_in'
    _gain = 1.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        std = _scaled_std(type(self).__name__, array.shape, self._fan, self.scale, self._gain)
        _fill_normal(array, std, self.rng)


class LeCunNormal(_FanScaledNormal):
    """Gaussian with std ``scale * sqrt(1 / fan_in)`` (LeCun et al., 1998).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """


class GlorotNormal(_FanScaledNormal):
    """Gaussian with std ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """

    _fan = 'fan_avg'


class HeNormal(_FanScaledNormal):
    """Gaussian with std ``scale * sqrt(2 / fan)`` (He et al., 2015).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``: which fan is ``fan``.
        rng: A random generator, or None for the array module's ``random``.
    """

    _gain = 2.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = 'fan_in',
                 rng: Any = None) -> None:
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError(f"HeNormal: fan_option must be 'fan_in' or 'fan_out'; "
                             f'got {fan_option!r}')
        super().__init__(scale, dtype, rng)
        self.fan_option = self._fan = fan_option
