"""The trigger that fires once."""

from __future__ import annotations

import warnings
from typing import Any


class OnceTrigger:
    """Fires at its first call only (and, optionally, once more after a resume).

    Args:
        call_on_resume: Whether to fire again at the first call after the
            trigger is loaded from a snapshot.
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """Whether the trigger will never fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Any) -> bool:
        """Returns True at the first call (or the first after a resume), then False."""
        fire = not self.finished
        self._flag_first = False
        self._flag_resumed = False
        return fire

    def serialize(self, serializer: Any) -> None:
        """Saves or loads whether the first call is still to come (``_flag_first``).

        A snapshot without the flag (Chainer before v5 saved none) is taken
        as one made after the first call, with a warning.
        """
        try:
            loaded = serializer('_flag_first', self._flag_first)
        except KeyError:
            warnings.warn('the snapshot holds no _flag_first of the OnceTrigger; it is '
                          'taken to be made after the first call, so the trigger does '
                          'not fire again unless call_on_resume is set', UserWarning,
                          stacklevel=2)
            self._flag_first = False
            return
        if loaded is not None:
            self._flag_first = bool(loaded)
