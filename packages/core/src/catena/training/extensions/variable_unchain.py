"""The extension that cuts the graphs of the reported variables (:class:`unchain_variables`)."""

from __future__ import annotations

from typing import Any

from catena import configuration
from catena.training import extension
from catena.variable import Variable


class unchain_variables(extension.Extension):  # noqa: N801 - Chainer's name
    """Cuts the computational graph of every Variable in the trainer's observation.

    A reported Variable keeps its graph when
    ``catena.config.keep_graph_on_report`` is true (as during the first
    iteration with :class:`~catena.training.extensions.DumpGraph`); this
    extension, run after every other one (priority 0), unchains those
    variables so the graph's memory is freed at once. It fires in the
    iterations that began with the flag on: its trigger returns the flag's
    value at the previous check.
    """

    priority = 0

    def __init__(self) -> None:
        self._prev_flag: bool | None = None

    def initialize(self, trainer: Any) -> None:
        """Records the flag before the first iteration."""
        self._prev_flag = bool(configuration.config.keep_graph_on_report)

    def trigger(self, trainer: Any) -> bool:
        """Fires when the flag was on at the previous check; records the flag now."""
        flag = self._prev_flag
        self._prev_flag = bool(configuration.config.keep_graph_on_report)
        return bool(flag)

    def __call__(self, trainer: Any) -> None:
        """Unchains every Variable of ``trainer.observation`` backward."""
        for value in trainer.observation.values():
            if isinstance(value, Variable):
                value.unchain_backward()


__all__ = ['unchain_variables']
