"""The :func:`static_code` decorator (Chainer's ``static_graph_utilities``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ['static_code']

F = TypeVar('F', bound=Callable[..., Any])


def static_code(func: F) -> F:
    """Marks side-effect code of a static chain that must run on every call.

    In Chainer, the body of a :func:`~catena.graph_optimizations.static_graph`
    method runs only on the first call and later calls replay a schedule of
    the functions it used; code other than function and link calls had to be
    put in a ``@static_code`` function or method to be replayed. catena runs
    the body on every call, so such code always runs: the decorator only
    marks the function (``func._is_static_code``) and returns it unchanged
    in behaviour, which keeps programs written for Chainer correct.

    Args:
        func: The function or method. As in Chainer, it may take the arrays
            it reads and writes as ``inputs=[...]`` and ``outputs=[...]``
            keyword arguments; they are passed through.

    Returns:
        The wrapped function.

    .. admonition:: Example

        >>> from catena.graph_optimizations import static_code
        >>> calls = []
        >>> @static_code
        ... def count(inputs=None, outputs=None):
        ...     calls.append(len(inputs))
        >>> count(inputs=[1, 2]); count(inputs=[3])
        >>> calls
        [2, 1]
    """
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    wrapper._is_static_code = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
