"""Stand-ins for ChainerMN communicators that catena's core does not build in."""

from __future__ import annotations

from typing import Any

from catena.distributed.communicators.mpi_base import MpiCommunicatorBase


def unavailable_communicator(name: str, class_name: str, hint: str,
                             error: type[Exception] = RuntimeError) -> type:
    """Returns a class named ``class_name`` whose construction raises ``error``.

    Code may import it, compare classes and use ``isinstance`` (always False
    for catena's communicators); only creating one fails, with ``hint``.
    ``RuntimeError`` says a plugin is missing; ``NotImplementedError``, that
    catena has no such communicator.
    """
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise error(f'the {name!r} communicator is not available here: {hint}')

    doc = f'ChainerMN\'s ``{class_name}``, unavailable here: {hint}.'
    return type(class_name, (MpiCommunicatorBase,), {'__new__': __new__, '__doc__': doc,
                                                     '__module__': __name__})
