"""Ready-made function hooks (``catena.function_hooks``).

* :class:`TimerHook` measures the time each function takes, forward and
  backward.
* :class:`PrintHook` prints each function's inputs (and, in backward, the
  gradients of its outputs) as it runs.

Use a hook for every function in a ``with`` block, or on one node with
:meth:`catena.FunctionNode.add_hook`. The GPU hooks ``CupyMemoryProfileHook``
and ``CUDAProfileHook`` are served from the catena-cuda package (through
:mod:`catena.backends.cuda`) when it is installed; without it, reading them
raises an :class:`AttributeError` that names the package.
"""

from __future__ import annotations

from typing import Any

from catena.function_hooks.debug_print import PrintHook
from catena.function_hooks.timer import TimerHook

_GPU_HOOKS = ('CUDAProfileHook', 'CupyMemoryProfileHook')


def __getattr__(name: str) -> Any:
    if name in _GPU_HOOKS:
        from catena.backends import cuda

        return getattr(cuda, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


__all__ = ['PrintHook', 'TimerHook']
