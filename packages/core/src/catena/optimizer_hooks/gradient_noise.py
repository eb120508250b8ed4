"""``GradientNoise``: adds annealed Gaussian noise to the gradients."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from catena import backend
from catena.optimizer_hooks._common import ParamHook, real_argument


def exponential_decay_noise(xp: Any, shape: tuple[int, ...], dtype: Any, hook: Any,
                            opt: Any) -> Any:
    """Gaussian noise whose variance decays with the update count.

    The standard deviation is :math:`\\sqrt{\\eta / (1 + t)^{0.55}}`, where
    :math:`\\eta` is ``hook.eta`` and :math:`t` is ``opt.t`` (Neelakantan et
    al., `Adding Gradient Noise Improves Learning for Very Deep Networks
    <https://arxiv.org/abs/1511.06807>`_). It draws from ``xp.random``.

    Args:
        xp: The array module of the gradient.
        shape: The shape of the noise.
        dtype: The dtype of the noise.
        hook: The :class:`GradientNoise` hook (for ``eta``).
        opt: The update rule (or optimizer) whose ``t`` anneals the noise.

    Returns:
        An array of noise of ``shape`` and ``dtype``.
    """
    std = math.sqrt(hook.eta / (1 + opt.t) ** 0.55)
    return xp.random.normal(0, std, shape).astype(dtype, copy=False)


class GradientNoise(ParamHook):
    """Optimizer/UpdateRule hook that adds noise to every gradient.

    Before the update (timing ``'pre'``), every gradient becomes
    :math:`g \\leftarrow g + \\text{noise\\_func}(xp, shape, dtype, hook, rule)`.
    While a gradient still carries a loss scale, the noise is scaled with
    it, so loss scaling does not change the result.

    Args:
        eta: The noise scale :math:`\\eta` (at least 0), read by
            ``noise_func``.
        noise_func: A callable ``(xp, shape, dtype, hook, rule)`` returning
            the noise array (default :func:`exponential_decay_noise`).

    Attributes:
        eta (float): The noise scale.
        noise_func (callable): The noise generator.
        name (str): The default name of the hook (``'GradientNoise'``).
    """

    name = 'GradientNoise'

    def __init__(self, eta: float,
                 noise_func: Callable[..., Any] = exponential_decay_noise) -> None:
        self.eta = real_argument('eta', eta, minimum=0)
        if not callable(noise_func):
            raise TypeError(f'noise_func must be callable, got {type(noise_func).__name__}')
        self.noise_func = noise_func

    def adjust(self, rule: Any, array: Any, grad: Any, scale: float) -> None:
        """Adds noise to ``grad`` in place (``rule`` is passed to ``noise_func``)."""
        xp = backend.get_array_module(grad)
        noise = self.noise_func(xp, grad.shape, grad.dtype, self, rule)
        if scale != 1.0:
            noise = noise * grad.dtype.type(scale)
        grad += noise
