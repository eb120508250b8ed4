"""Hooks called around the forward computation of links (:class:`LinkHook`)."""

from __future__ import annotations

from typing import Any, NamedTuple

from catena import _link_hooks


class _ForwardPreprocessCallbackArgs(NamedTuple):
    link: Any
    forward_name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _ForwardPostprocessCallbackArgs(NamedTuple):
    link: Any
    forward_name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    out: Any


class LinkHook:
    """Base of hooks that run before and after a link's forward computation.

    A hook applies to one link through :meth:`catena.Link.add_hook`, or to
    every link called in the current thread while it is used as a context
    manager (``with hook: ...``). Subclasses override the callbacks they need.

    Attributes:
        name (str): The name under which the hook is registered.
    """

    name = 'LinkHook'

    def __enter__(self) -> LinkHook:
        _link_hooks.register(self.name, self)
        self.added(None)
        return self

    def __exit__(self, *_: Any) -> None:
        self.deleted(None)
        _link_hooks.unregister(self.name)

    def added(self, link: Any) -> None:
        """Called when the hook is registered.

        Args:
            link: The link it was added to, or None for a global (``with``) hook.
        """

    def deleted(self, link: Any) -> None:
        """Called when the hook is unregistered.

        Args:
            link: The link it was removed from, or None for a global hook.
        """

    def forward_preprocess(self, args: Any) -> None:
        """Called before the forward computation of a link.

        Args:
            args: An object with the attributes ``link``, ``forward_name``,
                ``args`` and ``kwargs`` (the positional and keyword arguments of
                the call).
        """

    def forward_postprocess(self, args: Any) -> None:
        """Called after the forward computation of a link.

        Args:
            args: As in :meth:`forward_preprocess`, plus ``out``, the result.
        """
