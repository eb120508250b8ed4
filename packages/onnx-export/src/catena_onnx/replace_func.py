"""Make a Python function appear as one FunctionNode, so that it exports as one ONNX node.

``as_funcnode`` decorates a function; ``fake_as_funcnode`` wraps one without
changing it. The wrapped call runs the function's own computation (forward
and backward are unchanged) but the graph records a single
:class:`WrappedFunctionNode`, which the exporter converts with the converter
registered for its name (``external_converters={'MyOp': convert}``) or, when
there is none, writes as a node of op type ``name`` with the attributes named
in ``attributes`` (a custom operator, for runtimes that implement it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import catena
from catena.function_node import FunctionNode


def _is_array(value: Any) -> bool:
    return hasattr(value, 'shape') and hasattr(value, 'dtype') and not isinstance(
        value, catena.Variable)


def _flatten(value: Any, found: list[Any]) -> Any:
    """Replaces every Variable (and array) in nested lists/tuples/dicts by a slot index."""
    if isinstance(value, catena.Variable) or _is_array(value):
        found.append(value)
        return _Slot(len(found) - 1)
    if isinstance(value, (list, tuple)):
        items = [_flatten(item, found) for item in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, Mapping):
        return {key: _flatten(item, found) for key, item in value.items()}
    return value


def _fill(value: Any, slots: Sequence[Any]) -> Any:
    if isinstance(value, _Slot):
        return slots[value.index]
    if isinstance(value, (list, tuple)):
        items = [_fill(item, slots) for item in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, Mapping):
        return {key: _fill(item, slots) for key, item in value.items()}
    return value


class _Slot:
    __slots__ = ('index',)

    def __init__(self, index: int) -> None:
        self.index = index


def _flat_outputs(result: Any) -> tuple[list[Any], Any]:
    found: list[Any] = []
    structure = _flatten(result, found)
    return found, structure


class WrappedFunctionNode(FunctionNode):
    """A Python function recorded as one FunctionNode.

    Attributes:
        custom_function_node_name: The name it exports under (its label).
        func: The wrapped function.
        args: The positional arguments with each Variable replaced by a slot.
        kwargs: The keyword arguments, likewise.
        attributes: ONNX attributes for the default conversion (name to value).
    """

    def __init__(self, name: str, func: Callable[..., Any], args: Any, kwargs: Any,
                 attributes: Mapping[str, Any] | None = None) -> None:
        self.custom_function_node_name = name
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.attributes = dict(attributes or {})
        self._structure: Any = None

    @property
    def label(self) -> str:
        return self.custom_function_node_name

    def __getattr__(self, name: str) -> Any:
        # The wrapped function's other arguments read as the node's attributes
        # (``node.value``), as converters of onnx-chainer expect.
        attributes = self.__dict__.get('attributes')
        if attributes is not None and name in attributes:
            return attributes[name]
        label = self.__dict__.get('custom_function_node_name')
        raise AttributeError(f'{type(self).__name__} {label!r} has no attribute {name!r}')

    def _run(self, inputs: Sequence[Any]) -> Any:
        return self.func(*_fill(self.args, inputs), **_fill(self.kwargs, inputs))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with catena.no_backprop_mode():
            result = self._run([catena.Variable(x, requires_grad=False) for x in inputs])
        outputs, self._structure = _flat_outputs(result)
        return tuple(y.array if isinstance(y, catena.Variable) else y for y in outputs)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> Any:
        inputs = list(self.get_retained_inputs())
        with catena.force_backprop_mode():
            outputs, _ = _flat_outputs(self._run(inputs))
        if not any(isinstance(y, catena.Variable) and y.creator is not None for y in outputs):
            raise ValueError(
                f'{self.custom_function_node_name}: the wrapped function returned no Variable '
                'computed from its inputs (only arrays or constants), so it cannot be '
                'backpropagated; return Variables to make it differentiable')
        pairs = [(y, gy) for y, gy in zip(outputs, grad_outputs)
                 if gy is not None and isinstance(y, catena.Variable) and y.creator is not None]
        targets = [inputs[i] for i in indexes]
        if not pairs:
            return (None,) * len(indexes)
        return tuple(catena.grad([y for y, _ in pairs], targets, [gy for _, gy in pairs],
                                 enable_double_backprop=True))


def _holds_data(value: Any) -> bool:
    found: list[Any] = []
    _flatten(value, found)
    return bool(found)


def _attributes(func: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
                renames: Sequence[tuple[Any, str]]) -> dict[str, Any]:
    """The arguments that hold no Variable or array, by name: ``arg<i>`` for the
    i-th positional one, the parameter name for the others (defaults included),
    renamed by ``renames``."""
    rename = dict(renames)
    named: list[tuple[Any, Any]] = list(enumerate(args))
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except (TypeError, ValueError):  # no signature, or arguments it does not take
        named += list(kwargs.items())
    else:
        bound.apply_defaults()
        named += [(key, value) for i, (key, value) in enumerate(bound.arguments.items())
                  if i >= len(args)]
    attributes = {}
    for key, value in named:
        if not _holds_data(value):
            default = f'arg{key}' if isinstance(key, int) else str(key)
            attributes[rename.get(key, default)] = value
    return attributes


def _call_wrapped(name: str, func: Callable[..., Any], args: Any, kwargs: Any,
                  attributes: Mapping[str, Any] | None,
                  node_class: type[WrappedFunctionNode] = WrappedFunctionNode) -> Any:
    found: list[Any] = []
    flat_args = _flatten(list(args), found)
    flat_kwargs = _flatten(dict(kwargs), found)
    node = node_class(name, func, flat_args, flat_kwargs, attributes)
    outputs = node.apply(found)
    return _fill(node._structure, outputs)


def as_funcnode(name: str, rename_attributes: Sequence[tuple[Any, str]] | None = None
                ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorates a function so that each call is recorded as one FunctionNode.

    Args:
        name: The name the node exports under (converter key or op type).
        rename_attributes: ``(argument, attribute name)`` pairs: the keyword
            argument (or positional index) whose value becomes the ONNX
            attribute of that name in the default conversion.

    Returns:
        The decorator.
    """
    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        return fake_as_funcnode(func, name, rename_attributes)
    return decorator


def fake_as_funcnode(alt_func: Callable[..., Any], name: str,
                     rename_attributes: Sequence[tuple[Any, str]] | None = None,
                     experimental_warning: bool = True, *,
                     node_class: type[WrappedFunctionNode] = WrappedFunctionNode
                     ) -> Callable[..., Any]:
    """Returns ``alt_func`` wrapped so that each call is recorded as one FunctionNode.

    Variables and arrays anywhere in the arguments (also inside lists, tuples
    and dicts) become the node's inputs; those in the result its outputs.

    Args:
        alt_func: The function to wrap.
        name: The name the node exports under.
        rename_attributes: As in :func:`as_funcnode`.
        experimental_warning: Accepted for onnx-chainer compatibility (no
            warning is issued).
        node_class: The node class to record (a subclass gets a converter
            of its own; catena's built-in converters use this).

    Returns:
        The wrapped function.
    """
    del experimental_warning
    renames = list(rename_attributes or ())

    @functools.wraps(alt_func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _call_wrapped(name, alt_func, args, kwargs,
                             _attributes(alt_func, args, kwargs, renames), node_class)

    return wrapped
