"""The registry of function hooks active in each thread.

``apply`` and backprop ask :func:`active_hooks` for the hooks to call; while no
hook is registered anywhere it answers from a counter, without touching the
thread-local state.
"""

from __future__ import annotations

import threading
from typing import Any

_state = threading.local()
n_registered = 0  # hooks currently registered in any thread
_count_lock = threading.Lock()


def get_function_hooks() -> dict[str, Any]:
    """Returns the ordered dict of function hooks registered in this thread."""
    try:
        return _state.hooks  # type: ignore[no-any-return]
    except AttributeError:
        hooks: dict[str, Any] = {}
        _state.hooks = hooks
        return hooks


def register(name: str, hook: Any) -> None:
    global n_registered
    hooks = get_function_hooks()
    if name in hooks:
        raise KeyError(f'a function hook named {name!r} is already registered in this thread')
    hooks[name] = hook
    with _count_lock:
        n_registered += 1


def unregister(name: str) -> None:
    global n_registered
    del get_function_hooks()[name]
    with _count_lock:
        n_registered -= 1


def active_hooks(node: Any) -> tuple[Any, ...]:
    """Returns the global and local hooks that apply to ``node``, in call order."""
    local = node._local_function_hooks
    if n_registered == 0 and not local:
        return ()
    hooks = list(getattr(_state, 'hooks', {}).values())
    if local:
        hooks.extend(local.values())
    return tuple(hooks)
