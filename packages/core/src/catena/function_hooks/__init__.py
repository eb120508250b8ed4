"""Ready-made function hooks (``catena.function_hooks``).

* :class:`TimerHook` measures the time each function takes, forward and
  backward.
* :class:`PrintHook` prints each function's inputs (and, in backward, the
  gradients of its outputs) as it runs.

Use a hook for every function in a ``with`` block, or on one node with
:meth:`catena.FunctionNode.add_hook`. GPU-specific hooks (Chainer's
``CupyMemoryProfileHook``, ``CUDAProfileHook``) belong to the catena-cuda
package.
"""

from __future__ import annotations

from catena.function_hooks.debug_print import PrintHook
from catena.function_hooks.timer import TimerHook

__all__ = ['PrintHook', 'TimerHook']
