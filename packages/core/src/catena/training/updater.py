"""The interface of updaters, which run one training step (:class:`Updater`)."""

from __future__ import annotations

from typing import Any


class Updater:
    """The base of updaters: what :class:`~catena.training.Trainer` drives.

    An updater owns the iterators and optimizers of training and advances
    them by one step on :meth:`update`.
    """

    def connect_trainer(self, trainer: Any) -> None:
        """Called by the trainer that will drive this updater."""

    def finalize(self) -> None:
        """Releases what the updater holds (its iterators' workers)."""

    def get_optimizer(self, name: str) -> Any:
        """Returns the optimizer registered as ``name``."""
        raise NotImplementedError

    def get_all_optimizers(self) -> dict[str, Any]:
        """Returns every optimizer by name."""
        raise NotImplementedError

    def update(self) -> None:
        """Runs one step of training."""
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the updater's state."""
        raise NotImplementedError
