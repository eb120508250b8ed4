"""Extensions that record a value into the observation (``observe_value``, ``observe_lr``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.training import _check, extension
from catena.utils import _validate


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Any:
    """Returns an extension that records ``target_func(trainer)`` under ``observation_key``.

    The extension runs once per epoch by default (pass ``trigger=`` to
    :meth:`~catena.training.Trainer.extend` to change it), with the
    priority of writers, so that readers such as
    :class:`~catena.training.extensions.LogReport` see the value.

    Args:
        observation_key: The key of the value in the observation.
        target_func: A function that takes the trainer and returns the value.

    Returns:
        The extension (a function made with
        :func:`~catena.training.make_extension`).
    """
    _check.key('observe_value', 'observation_key', observation_key)
    _validate.function('observe_value', 'target_func', target_func)

    @extension.make_extension(trigger=(1, 'epoch'), priority=extension.PRIORITY_WRITER)
    def _observe_value(trainer: Any) -> None:
        trainer.observation[observation_key] = target_func(trainer)

    return _observe_value


def observe_lr(optimizer_name: str = 'main', observation_key: str = 'lr') -> Any:
    """Returns an extension that records an optimizer's learning rate (its ``lr``).

    Args:
        optimizer_name: The name of the optimizer in the updater.
        observation_key: The key of the value in the observation.

    Returns:
        The extension (see :func:`observe_value`).
    """
    _check.key('observe_lr', 'optimizer_name', optimizer_name)
    _check.key('observe_lr', 'observation_key', observation_key)

    def learning_rate(trainer: Any) -> Any:
        return trainer.updater.get_optimizer(optimizer_name).lr

    return observe_value(observation_key, learning_rate)


__all__ = ['observe_lr', 'observe_value']
