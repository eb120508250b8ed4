"""Abort the whole MPI job when one rank dies of an uncaught exception.

Without this, a rank that raises exits (finalizing MPI normally), while the
other ranks wait forever in their next collective call. The hook, installed
as ``sys.excepthook``, prints the traceback with the rank, then calls
``MPI_Abort`` so that ``mpiexec`` stops every rank and exits with a non-zero
status within seconds.

catena installs it when it creates an MPI communicator. Set the environment
variable ``CATENA_DISTRIBUTED_NO_EXCEPT_HOOK=1`` to opt out, or call
:func:`remove_hook` (communicators created afterwards do not install it
again). :func:`add_hook` installs it explicitly (ChainerMN's
``chainermn.global_except_hook.add_hook()``).

Only uncaught Python exceptions are covered: a crash inside a C extension
(for example a segmentation fault) can still leave the other ranks waiting.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
from typing import Any

OPT_OUT_ENV = 'CATENA_DISTRIBUTED_NO_EXCEPT_HOOK'

_previous_hook: Any = None
_removed_explicitly = False


def _global_except_hook(exc_type: type[BaseException], value: BaseException,
                        tb: types.TracebackType | None) -> None:
    MPI = sys.modules.get('mpi4py.MPI')
    if MPI is None or not MPI.Is_initialized() or MPI.Is_finalized():
        (_previous_hook or sys.__excepthook__)(exc_type, value, tb)
        return
    try:
        world = MPI.COMM_WORLD
        sys.stderr.write(f'\ncatena.distributed: uncaught exception on rank {world.rank} of '
                         f'{world.size}; calling MPI Abort to stop every rank\n')
        traceback.print_exception(exc_type, value, tb)
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        MPI.COMM_WORLD.Abort(1)


def _get_hook() -> Any:
    """Returns the hook function (what :func:`add_hook` installs as ``sys.excepthook``)."""
    return _global_except_hook


def is_installed() -> bool:
    """Whether the hook is the current ``sys.excepthook``."""
    return sys.excepthook is _global_except_hook


def add_hook() -> None:
    """Installs the hook as ``sys.excepthook`` (nothing happens when it is installed already)."""
    global _previous_hook, _removed_explicitly
    _removed_explicitly = False
    if not is_installed():
        _previous_hook = sys.excepthook
        sys.excepthook = _global_except_hook


def remove_hook() -> None:
    """Restores the ``sys.excepthook`` that was current before :func:`add_hook`."""
    global _previous_hook, _removed_explicitly
    _removed_explicitly = True
    if is_installed():
        sys.excepthook = _previous_hook or sys.__excepthook__
        _previous_hook = None


def _opted_out() -> bool:
    return os.environ.get(OPT_OUT_ENV, '').strip().lower() in ('1', 'true', 'yes', 'on')


def _add_hook_if_enabled() -> None:
    """Installs the hook unless the environment opts out or :func:`remove_hook` was called."""
    if not _opted_out() and not _removed_explicitly:
        add_hook()
