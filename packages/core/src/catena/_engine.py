"""Which engine runs the graph's hot path: the compiled one (C) or pure Python.

``CATENA_ENGINE`` chooses, read once when catena is imported:

``auto`` (the default)
    the compiled engine (:mod:`catena._cengine`) when it loads, else pure
    Python; :data:`reason` says why.
``compiled``
    the compiled engine, or an ImportError when it cannot load.
``python``
    pure Python, always.

Both engines compute the same thing: the compiled one covers
``FunctionNode.apply``'s common path and hands every other call (hooks,
debug mode, inputs that are neither Variables nor NumPy arrays) to the
Python code before anything has run. ``python -m catena info`` reports the
engine in use and why.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

VARIABLE = 'CATENA_ENGINE'
CHOICES = ('auto', 'compiled', 'python')

name = 'python'
"""The engine in use: ``'compiled'`` or ``'python'``."""

reason = 'not installed yet'
"""Why :data:`name` was chosen, for ``python -m catena info``."""


def requested() -> str:
    """The value of ``CATENA_ENGINE`` (``'auto'`` when unset).

    Raises:
        ValueError: It holds something other than auto, compiled or python.
    """
    value = os.environ.get(VARIABLE, '').strip().lower() or 'auto'
    if value not in CHOICES:
        raise ValueError(f'{VARIABLE} must be one of {", ".join(CHOICES)}; got '
                         f'{os.environ[VARIABLE]!r}')
    return value


def install(function_node: type, python_apply: Any) -> None:
    """Puts the chosen engine's ``apply`` on :class:`~catena.FunctionNode`.

    Called once, at the end of :mod:`catena.function_node`.
    """
    global name, reason
    choice = requested()
    if choice == 'python':
        name, reason = 'python', f'{VARIABLE}=python'
        return
    try:
        compiled_apply = _compiled_apply(function_node, python_apply)
    except (ImportError, TypeError) as error:
        if choice == 'compiled':
            raise ImportError(f'{VARIABLE}=compiled, but the compiled engine cannot be '
                              f'used: {error}') from error
        name = 'python'
        reason = f'the compiled engine cannot be used ({type(error).__name__}: {error})'
        return
    function_node.apply = compiled_apply  # type: ignore[attr-defined]
    name = 'compiled'
    reason = f'{VARIABLE}={choice}'


def _compiled_module() -> Any:
    # import_module names the missing module where ``from catena import`` would
    # blame a circular import (catena is still being imported).
    return importlib.import_module('catena._cengine')


def _compiled_apply(function_node: type, python_apply: Any) -> Any:
    import numpy

    from catena import _function_hooks, _quick_types
    from catena.backends import _registry
    from catena.backends._kernel import Fallback
    from catena.configuration import flags
    from catena.variable import Variable
    from catena.variable_node import VariableNode, _dead_reference

    return _compiled_module().install(
        function_node=function_node, variable=Variable, variable_node=VariableNode,
        ndarray=numpy.ndarray, flags=flags, function_hooks=_function_hooks,
        registry=_registry, python_apply=python_apply, dead_reference=_dead_reference,
        fallback=Fallback, quick_tests=(_quick_types.two_same_arrays,
                                        _quick_types.two_same_float_arrays,
                                        _quick_types.one_float_array))


def operator(kind: str, node_class: type, python_operator: Any) -> Any:
    """The method that Variable gets for ``+`` (``kind='add'``) or ``*`` (``'mul'``).

    With the compiled engine, a C method that applies ``node_class`` to two
    Variables, or to a Variable and a NumPy array of its dtype, and calls
    ``python_operator`` for any other operand; else ``python_operator``.
    """
    if name != 'compiled':
        return python_operator
    return _compiled_module().operator(kind, node_class, python_operator)


def backprop_loop(python_loop: Any) -> Any:
    """The loop of :func:`catena._backprop._propagate` that the engine runs.

    With the compiled engine, its C copy (bound to :mod:`catena._backprop`'s
    helpers); else ``python_loop``.
    """
    if name != 'compiled':
        return python_loop
    import heapq

    from catena import _backprop

    return _compiled_module().install_backprop(_backprop, heapq)


def description() -> str:
    """One line for ``python -m catena info``: the engine and why."""
    return f'{name} ({reason})'
