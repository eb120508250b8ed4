"""Deep copies of links that hold a communicator, which is shared rather than copied."""

from __future__ import annotations

import copy
from typing import Any


class SharesCommunicatorOnCopy:
    """Mixin: ``copy.deepcopy`` (and ``Link.copy('copy')``) keep ``self.comm`` as it is.

    A communicator wraps process-wide MPI state and cannot be duplicated;
    copies of a link that uses one communicate through the same one.
    """

    comm: Any

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        comm = self.__dict__.get('comm')
        if comm is not None:
            memo[id(comm)] = comm
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            new.__dict__[name] = copy.deepcopy(value, memo)
        return new
