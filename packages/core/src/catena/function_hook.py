"""The base class of function hooks (:class:`FunctionHook`)."""

from __future__ import annotations

from typing import Any

from catena import _function_hooks


class FunctionHook:
    """Callbacks around the forward and backward computation of FunctionNodes.

    Use a hook for every node in a ``with`` block (``with TimerHook() as h:``)
    or on one node with :meth:`catena.FunctionNode.add_hook`. Subclasses
    override the callbacks they need.

    Attributes:
        name: The name under which the hook is registered.
    """

    name = 'FunctionHook'

    def __enter__(self) -> FunctionHook:
        _function_hooks.register(self.name, self)
        self.added(None)
        return self

    def __exit__(self, *args: Any) -> None:
        self.deleted(None)
        _function_hooks.unregister(self.name)

    def added(self, function: Any) -> None:
        """Called when the hook is registered (``function`` is None for a global hook)."""

    def deleted(self, function: Any) -> None:
        """Called when the hook is removed (``function`` is None for a global hook)."""

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called before ``function`` computes its forward pass on ``in_data``."""

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        """Called after ``function`` computed its forward pass on ``in_data``."""

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...],
                            out_grad: tuple[Any, ...]) -> None:
        """Called before ``function`` computes its backward pass.

        Args:
            function: The FunctionNode.
            in_data: The retained input arrays (None where not retained).
            out_grad: The gradient arrays of the outputs (None for zero).
        """

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...],
                             out_grad: tuple[Any, ...]) -> None:
        """Called after ``function`` computed its backward pass (arguments as above)."""
