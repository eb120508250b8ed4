"""Stand-ins for ChainerMN communicators that catena's core does not build in."""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators.mpi_base import MpiCommunicatorBase


def unavailable_communicator(name: str, class_name: str, hint: str) -> type:
    """Returns a class named ``class_name`` whose construction raises ``RuntimeError``.

    Code may import it, compare classes and use ``isinstance`` (always False
    for catena's communicators); only creating one fails, with ``hint``.
    """
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f'the {name!r} communicator is not available here: {hint}')

    doc = f'ChainerMN\'s ``{class_name}``, unavailable here: {hint}.'
    return type(class_name, (MpiCommunicatorBase,), {'__new__': __new__, '__doc__': doc,
                                                     '__module__': __name__})
