"""Gaussian initializers: Normal, LeCunNormal, GlorotNormal and HeNormal."""

from __future__ import annotations

from typing import Any

from catena.initializers._base import Initializer, _random_state, _scaled_std


def _fill_normal(array: Any, std: float, rng: Any) -> None:
    array[...] = _random_state(rng, array).normal(loc=0.0, scale=std, size=array.shape)


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


class LeCunNormal(Initializer):
    """Gaussian with std ``scale * sqrt(1 / fan_in)`` (LeCun et al., 1998).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        std = _scaled_std('LeCunNormal', array.shape, 'fan_in', self.scale, 1.0)
        _fill_normal(array, std, self.rng)


class GlorotNormal(Initializer):
    """Gaussian with std ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        rng: A random generator, or None for the array module's ``random``.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        std = _scaled_std('GlorotNormal', array.shape, 'fan_avg', self.scale, 1.0)
        _fill_normal(array, std, self.rng)


class HeNormal(Initializer):
    """Gaussian with std ``scale * sqrt(2 / fan)`` (He et al., 2015).

    Args:
        scale: A factor on the standard deviation.
        dtype: The dtype the initializer produces.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``: which fan is ``fan``.
        rng: A random generator, or None for the array module's ``random``.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = 'fan_in',
                 rng: Any = None) -> None:
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError(f"HeNormal: fan_option must be 'fan_in' or 'fan_out'; "
                             f'got {fan_option!r}')
        super().__init__(dtype)
        self.scale = scale
        self.fan_option = fan_option
        self.rng = rng

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        std = _scaled_std('HeNormal', array.shape, self.fan_option, self.scale, 2.0)
        _fill_normal(array, std, self.rng)
