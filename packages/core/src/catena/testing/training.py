"""A trainer driven by a mock updater, to test extensions and triggers (``testing.training``)."""

from __future__ import annotations

from typing import Any
from unittest import mock


def _mock_updater(iter_per_epoch: float) -> mock.Mock:
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update() -> None:
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return updater


def get_trainer_with_mock_updater(stop_trigger: Any = (10, 'iteration'),
                                  iter_per_epoch: float = 10,
                                  extensions: list[Any] | None = None) -> Any:
    """Returns a :class:`~catena.training.Trainer` whose updater is a :class:`unittest.mock.Mock`.

    Each ``updater.update()`` calls ``updater.update_core()`` (a mock, or a
    function the test assigns) and advances ``iteration``, ``epoch``,
    ``epoch_detail``, ``is_new_epoch`` and ``previous_epoch_detail`` as an
    updater with ``iter_per_epoch`` iterations per epoch would. Every other
    attribute is a mock too (set ``updater.get_optimizer.return_value`` to
    give extensions an optimizer).

    Args:
        stop_trigger: The trainer's stop trigger.
        iter_per_epoch: Iterations per epoch; need not be an integer.
        extensions: Extensions to add to the trainer.

    .. admonition:: Example

        >>> trainer = testing.get_trainer_with_mock_updater((5, 'epoch'), iter_per_epoch=2)
        >>> trainer.run()
        >>> trainer.updater.iteration
        10
    """
    from catena.training.trainer import Trainer

    if iter_per_epoch <= 0:
        raise ValueError(f'iter_per_epoch must be positive; got {iter_per_epoch!r}')
    return Trainer(_mock_updater(iter_per_epoch), stop_trigger, extensions=extensions or [])


__all__ = ['get_trainer_with_mock_updater']
