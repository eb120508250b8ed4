"""The registry of link hooks active in each thread (``with hook:`` blocks).

:meth:`catena.Link.__call__` asks :func:`active_hooks`; while no hook is
registered anywhere it answers from a counter, without thread-local lookups.
"""

from __future__ import annotations

import threading
from typing import Any

_state = threading.local()
n_registered = 0  # hooks currently registered in any thread
_count_lock = threading.Lock()


def get_link_hooks() -> dict[str, Any]:
    """Returns the ordered dict of link hooks registered in this thread."""
    try:
        return _state.hooks  # type: ignore[no-any-return]
    except AttributeError:
        hooks: dict[str, Any] = {}
        _state.hooks = hooks
        return hooks


def register(name: str, hook: Any) -> None:
    """Registers ``hook`` under ``name`` for every link called in this thread."""
    global n_registered
    hooks = get_link_hooks()
    if name in hooks:
        raise KeyError(f'a link hook named {name!r} is already registered in this thread')
    hooks[name] = hook
    with _count_lock:
        n_registered += 1


def unregister(name: str) -> None:
    """Removes the hook registered under ``name`` in this thread."""
    global n_registered
    del get_link_hooks()[name]
    with _count_lock:
        n_registered -= 1


def active_hooks(local: dict[str, Any] | None) -> tuple[Any, ...]:
    """Returns the global hooks, then the link's ``local`` ones, in call order."""
    if n_registered == 0 and not local:
        return ()
    hooks = list(getattr(_state, 'hooks', {}).values())
    if local:
        hooks.extend(local.values())
    return tuple(hooks)
