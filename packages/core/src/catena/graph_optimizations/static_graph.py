"""The :func:`static_graph` decorator (Chainer's ``chainer.graph_optimizations.static_graph``).

Chainer traced the first call of a decorated ``__call__`` and replayed an
optimized schedule afterwards. catena keeps the decorator's contract (same
results and gradients as define-by-run, ``schedule_manager`` and
``static_schedule`` on the chain, one schedule per configuration and input
signature, no nesting, ``config.use_static_graph`` to turn it off) and runs
the define-by-run code on every call: results are the same by construction,
and code that Chainer ran only once (side-effect code outside
:func:`~catena.graph_optimizations.static_code`) runs every time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, overload

from catena.configuration import config, using_config

__all__ = ['ScheduleManager', 'StaticScheduleFunction', 'static_graph']

F = TypeVar('F', bound=Callable[..., Any])


class _Options(NamedTuple):
    force_test_define_by_run: bool = False
    minimize_cache_size: bool = True
    verbosity_level: int = 0
    enable_double_backprop: bool = False


class StaticScheduleFunction:
    """The schedule of a static chain for one configuration and input signature.

    Attributes:
        key: ``(train, enable_backprop, input signature)``; the signature
            lists the ``(shape, dtype)`` of each input array, nested lists
            and tuples as tuples, other arguments by value.
        num_calls: How many calls used this schedule.
    """

    def __init__(self, chain: Any, key: tuple[Any, ...]) -> None:
        self.chain_name = type(chain).__name__
        self.key = key
        self.num_calls = 0

    def __repr__(self) -> str:
        train, enable_backprop, signature = self.key
        return (f'<StaticScheduleFunction of {self.chain_name}: train={train}, '
                f'enable_backprop={enable_backprop}, inputs={signature}, '
                f'calls={self.num_calls}>')


class ScheduleManager:
    """The schedules of one static chain (``chain.schedule_manager``).

    One :class:`StaticScheduleFunction` is kept per training mode, backprop
    mode and input signature, as Chainer kept one static schedule for each.

    Args:
        verbosity_level: 1 or more prints a line when a schedule is created.
    """

    def __init__(self, verbosity_level: int = 0) -> None:
        self.verbosity_level = verbosity_level
        self.schedules: dict[tuple[Any, ...], StaticScheduleFunction] = {}
        self.iterations = 0

    def get_static_schedule(self, chain: Any, args: tuple[Any, ...],
                            kwargs: dict[str, Any]) -> StaticScheduleFunction:
        """Returns the schedule for the current configuration and these arguments."""
        key = (bool(config.train), bool(config.enable_backprop),
               _signature((args, tuple(sorted(kwargs.items())))))
        schedule = self.schedules.get(key)
        if schedule is None:
            schedule = self.schedules.setdefault(key, StaticScheduleFunction(chain, key))
            if self.verbosity_level >= 1:
                print(f'static_graph: created {schedule!r}')
        schedule.num_calls += 1
        return schedule

    def end_forward(self) -> None:
        """Tells the manager that an iteration's forward passes have ended.

        Chainer needed it to recycle per-call schedules when ``backward`` was
        not called; catena only counts iterations.
        """
        self.iterations += 1

    def __repr__(self) -> str:
        lines = [f'ScheduleManager with {len(self.schedules)} schedule(s):']
        lines += [f'  {schedule!r}' for schedule in self.schedules.values()]
        return '\n'.join(lines)


def _signature(value: Any) -> Any:
    array = getattr(value, 'array', value)  # a Variable's array
    if hasattr(array, 'shape') and hasattr(array, 'dtype'):
        return (tuple(array.shape), str(array.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(_signature(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return type(value).__name__
    return value


@overload
def static_graph(func: F) -> F: ...
@overload
def static_graph(*, force_test_define_by_run: bool = ..., minimize_cache_size: bool = ...,
                 verbosity_level: int = ...,
                 enable_double_backprop: bool = ...) -> Callable[[F], F]: ...


def static_graph(func: Any = None, **options: Any) -> Any:
    """Marks a chain's ``__call__`` (or another method) as building a static graph.

    Use it bare (``@static_graph``) or with options
    (``@static_graph(verbosity_level=1)``). While
    ``catena.config.use_static_graph`` is True (the default), each call
    records a schedule in ``chain.schedule_manager`` (a
    :class:`ScheduleManager`) and sets ``chain.static_schedule`` to the
    schedule of that call; with it False the method is called with no
    side effect at all. The method's results and gradients are those of its
    define-by-run code, which catena runs on every call (see the module's
    documentation).

    Args:
        func: The method, when the decorator is used bare.
        force_test_define_by_run: Accepted for Chainer compatibility (catena
            always runs the define-by-run code).
        minimize_cache_size: Accepted for Chainer compatibility.
        verbosity_level: 1 or more prints a line whenever a new schedule is
            created.
        enable_double_backprop: Accepted for Chainer compatibility (double
            backprop works as in define-by-run).

    Returns:
        The decorated method, or a decorator when only options are given.

    Raises:
        TypeError: For an unknown option or a non-callable ``func``.
        RuntimeError: When a static chain is called while another static
            chain runs (nesting is not allowed, as in Chainer: decorate only
            the outermost chain).

    .. admonition:: Example

        >>> import numpy as np
        >>> import catena
        >>> import catena.functions as F
        >>> import catena.links as L
        >>> from catena.graph_optimizations import static_graph
        >>> class MLP(catena.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Linear(3, 2)
        ...     @static_graph
        ...     def __call__(self, x):
        ...         return F.relu(self.l1(x))
        >>> model = MLP()
        >>> model(np.ones((4, 3), np.float32)).shape
        (4, 2)
        >>> len(model.schedule_manager.schedules)
        1
    """
    unknown = set(options) - set(_Options._fields)
    if unknown:
        raise TypeError(f'static_graph() got unexpected keyword argument(s) '
                        f'{", ".join(map(repr, sorted(unknown)))}; it accepts '
                        f'{", ".join(_Options._fields)}')
    settings = _Options(**options)
    if func is None:
        return lambda f: _decorate(f, settings)
    if not callable(func):
        raise TypeError(f'static_graph() decorates a method, got {type(func).__name__}; '
                        'pass options as keyword arguments')
    return _decorate(func, settings)


def _decorate(func: F, settings: _Options) -> F:
    if not callable(func):
        raise TypeError(f'static_graph decorates a method, got {type(func).__name__}')

    @functools.wraps(func)
    def wrapper(chain: Any, *args: Any, **kwargs: Any) -> Any:
        if not config.use_static_graph:
            return func(chain, *args, **kwargs)
        if config.schedule_func is not None:
            raise RuntimeError(
                f'{type(chain).__name__}.{func.__name__} is decorated with static_graph and '
                'was called while another static chain runs; static_graph must not be nested '
                '(decorate only the outermost chain)')
        manager = chain.__dict__.get('schedule_manager')
        if manager is None:
            manager = ScheduleManager(settings.verbosity_level)
            object.__setattr__(chain, 'schedule_manager', manager)
        schedule = manager.get_static_schedule(chain, args, kwargs)
        object.__setattr__(chain, 'static_schedule', schedule)
        with using_config('schedule_func', schedule):
            return func(chain, *args, **kwargs)

    wrapper._static_graph_options = settings  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
