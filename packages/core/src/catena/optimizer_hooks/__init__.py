"""Hooks that modify gradients around an optimizer update (``catena.optimizer_hooks``)."""

from __future__ import annotations

from catena.optimizer_hooks.gradient_clipping import GradientClipping
from catena.optimizer_hooks.gradient_hard_clipping import GradientHardClipping
from catena.optimizer_hooks.gradient_lars import GradientLARS
from catena.optimizer_hooks.gradient_noise import GradientNoise, exponential_decay_noise
from catena.optimizer_hooks.lasso import Lasso
from catena.optimizer_hooks.weight_decay import WeightDecay

__all__ = [
    'GradientClipping', 'GradientHardClipping', 'GradientLARS', 'GradientNoise', 'Lasso',
    'WeightDecay', 'exponential_decay_noise',
]
