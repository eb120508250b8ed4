"""Trainer extensions: callables run by the Trainer on a schedule (:class:`Extension`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Priority of extensions that write values to the observation (run first).
PRIORITY_WRITER = 300
#: Priority of extensions that edit reported values.
PRIORITY_EDITOR = 200
#: Priority of extensions that only read the observation (run last).
PRIORITY_READER = 100


class Extension:
    """The base of trainer extensions.

    An extension is called as ``extension(trainer)`` whenever its trigger
    fires. The class attributes below are the defaults that
    :meth:`catena.training.Trainer.extend` reads.

    Attributes:
        trigger: The default trigger, ``(1, 'iteration')``.
        priority (int): The order among extensions fired at the same step
            (higher first): :data:`PRIORITY_WRITER`, :data:`PRIORITY_EDITOR`
            or :data:`PRIORITY_READER`.
        name (str): The name under which the trainer registered it.
    """

    trigger: Any = (1, 'iteration')
    priority: int = PRIORITY_READER
    name: str | None = None

    @property
    def default_name(self) -> str:
        """The name used when none is given: the class name."""
        return type(self).__name__

    def __call__(self, trainer: Any) -> None:
        """Runs the extension."""
        raise NotImplementedError(f'{type(self).__name__} must implement __call__(trainer)')

    def initialize(self, trainer: Any) -> None:
        """Called once before the training loop (also when it resumes)."""

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Called when the training loop raises, before the extensions finalize."""

    def finalize(self) -> None:
        """Called once when the training loop ends, even by an error."""

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the extension's state (none by default)."""


def make_extension(trigger: Any = None, default_name: str | None = None,
                   priority: int | None = None, finalizer: Callable[[], Any] | None = None,
                   initializer: Callable[[Any], Any] | None = None,
                   on_error: Callable[[Any, BaseException, Any], Any] | None = None,
                   **kwargs: Any) -> Callable[[Any], Any]:
    """Decorator that turns a function ``f(trainer)`` into an extension.

    Args:
        trigger: The default trigger (default ``(1, 'iteration')``).
        default_name: The default name (default: the function's name).
        priority: The default priority (default :data:`PRIORITY_READER`).
        finalizer: Called with no argument when training ends.
        initializer: Called with the trainer before training starts.
        on_error: Called as ``on_error(trainer, exc, tb)`` when training fails.

    Returns:
        A decorator that sets those attributes on the function and returns it.

    Raises:
        ValueError: ``invoke_before_training`` is given (removed in Chainer
            v2; use ``initializer``).
        TypeError: Another unknown keyword argument is given.
    """
    if 'invoke_before_training' in kwargs:
        raise ValueError('make_extension: invoke_before_training was removed (Chainer v2); '
                         'pass initializer= to run code before training')
    if kwargs:
        raise TypeError('make_extension() got unexpected keyword argument(s): '
                        + ', '.join(sorted(kwargs)))
    if trigger is None:
        trigger = Extension.trigger
    if priority is None:
        priority = Extension.priority

    def decorator(ext: Any) -> Any:
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.initialize = initializer
        ext.on_error = on_error
        return ext

    return decorator
