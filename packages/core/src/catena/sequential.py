"""A link that applies its layers one after another (:class:`Sequential`)."""

from __future__ import annotations

import ast
import copy as _copy
import inspect
from collections.abc import Iterable, Iterator
from typing import Any

from catena import link as _link


def _check_layer(layer: Any) -> None:
    if not callable(layer):
        raise ValueError(f'a Sequential layer must be a link or a callable; got '
                         f'{type(layer).__name__}')


def _is_lambda(layer: Any) -> bool:
    return getattr(layer, '__name__', None) == '<lambda>'


def _lambda_source(layer: Any) -> str:
    """The source text of a lambda (``lambda x: ...``), or ``<lambda>`` if unavailable."""
    try:
        text = inspect.getsource(layer)
    except (OSError, TypeError):
        return '<lambda>'
    start = text.find('lambda')
    if start < 0:
        return '<lambda>'
    text = text[start:].rstrip()
    # The longest prefix that parses as a lambda expression by itself.
    for end in range(len(text), 0, -1):
        try:
            tree = ast.parse(text[:end], mode='eval')
        except SyntaxError:
            continue
        if isinstance(tree.body, ast.Lambda):
            return text[:end].strip()
    return '<lambda>'


def _describe(layer: Any) -> str:
    if isinstance(layer, _link.Link):
        return repr(layer)
    if _is_lambda(layer):
        return _lambda_source(layer)
    name = getattr(layer, '__name__', None)
    return str(name) if name is not None else str(layer)


def _layer_type_name(layer: Any) -> str:
    if isinstance(layer, _link.Link):
        return type(layer).__name__
    return str(getattr(layer, '__name__', type(layer).__name__))


class Sequential(_link.ChainList):
    """A chain of layers applied in order: ``forward(x)`` is ``layer_n(...layer_1(x))``.

    Layers may be links (registered as children, so their parameters belong to
    the Sequential) or plain callables such as ``catena.functions.relu``. When
    a layer returns a tuple, the next layer gets its elements as arguments.
    Indexing, ``len`` and iteration act on the layers (links and callables).

    Args:
        layers: The initial layers.
    """

    def __init__(self, *layers: Any) -> None:
        self._layers: list[Any] = []
        super().__init__()
        for layer in layers:
            self.append(layer)

    def forward(self, *x: Any) -> Any:
        """Applies the layers in order to the inputs."""
        if not self._layers:
            raise RuntimeError('Sequential has no layers to apply')
        out: Any = x
        for layer in self._layers:
            out = layer(*out) if isinstance(out, tuple) else layer(out)
        return out

    # ------------------------------------------------------------ list API

    def _sync_children(self) -> None:
        """Rebuilds the child links (named by their order among the links)."""
        children = [layer for layer in self._layers if isinstance(layer, _link.Link)]
        self.__dict__['_children'] = children
        self._rename_children()

    def __getitem__(self, index: Any) -> Any:
        """Returns the layer at ``index`` (a list of layers for a slice)."""
        return self._layers[index]

    def __setitem__(self, index: Any, layer: Any) -> None:
        if isinstance(index, slice):
            layers = list(layer)
            for item in layers:
                _check_layer(item)
            self._layers[index] = layers
        else:
            _check_layer(layer)
            self._layers[index] = layer
        self._sync_children()

    def __delitem__(self, index: Any) -> None:
        del self._layers[index]
        self._sync_children()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._layers)

    def __len__(self) -> int:
        return len(self._layers)

    def __contains__(self, layer: object) -> bool:
        return any(item is layer or item == layer for item in self._layers)

    def __reversed__(self) -> Iterator[Any]:
        return reversed(self._layers)

    def insert(self, index: int, layer: Any) -> None:
        """Inserts ``layer`` before position ``index``.

        Raises:
            IndexError: If ``index`` is out of ``[-len(self), len(self)]``.
        """
        size = len(self._layers)
        if not -size <= index <= size:
            raise IndexError(f'cannot insert at position {index} of a Sequential of '
                             f'{size} layers')
        _check_layer(layer)
        self._layers.insert(index, layer)
        self._sync_children()

    def append(self, layer: Any) -> None:
        """Appends ``layer`` (a link or a callable)."""
        _check_layer(layer)
        self._layers.append(layer)
        if isinstance(layer, _link.Link):
            object.__setattr__(layer, 'name', str(len(self._children)))
            self._children.append(layer)

    def add_link(self, link: Any) -> None:
        """Appends ``link`` (same as :meth:`append`)."""
        self.append(link)

    def extend(self, layers: Iterable[Any]) -> None:
        """Appends every layer of ``layers``."""
        for layer in list(layers):
            self.append(layer)

    def pop(self, index: int = -1) -> Any:
        """Removes and returns the layer at ``index`` (the last one by default)."""
        layer = self._layers.pop(index)
        self._sync_children()
        return layer

    def remove(self, layer: Any) -> None:
        """Removes the first occurrence of ``layer``."""
        for i, item in enumerate(self._layers):
            if item is layer or item == layer:
                del self[i]
                return
        raise ValueError(f'{layer!r} is not a layer of this Sequential')

    def clear(self) -> None:
        """Removes every layer."""
        self._layers.clear()
        self._sync_children()

    def index(self, layer: Any, start: int = 0, stop: int | None = None) -> int:
        """Returns the position of the first occurrence of ``layer``."""
        end = len(self._layers) if stop is None else stop
        for i in range(start, end):
            item = self._layers[i]
            if item is layer or item == layer:
                return i
        raise ValueError(f'{layer!r} is not a layer of this Sequential')

    def count(self, layer: Any) -> int:
        """Returns how many times ``layer`` occurs."""
        return sum(1 for item in self._layers if item is layer or item == layer)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Removes every layer whose type (links) or ``__name__`` (callables) is ``type_name``."""
        self._layers = [layer for layer in self._layers
                        if _layer_type_name(layer) != type_name]
        self._sync_children()

    def count_by_layer_type(self, type_name: str) -> int:
        """Returns how many layers have the type (links) or ``__name__`` (callables) given."""
        return sum(1 for layer in self._layers if _layer_type_name(layer) == type_name)

    def __add__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f'only a Sequential can be added to a Sequential; got '
                             f'{type(other).__name__}')
        ret = Sequential()
        ret.extend(self._layers)
        ret.extend(other._layers)
        return ret

    def __radd__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            return NotImplemented
        return other.__add__(self)

    def __iadd__(self, other: Any) -> Sequential:
        if isinstance(other, Sequential):
            self.extend(other._layers)
        elif isinstance(other, _link.Link) or callable(other):
            self.append(other)
        else:
            raise ValueError(f'only a Sequential, a link or a callable can be added to a '
                             f'Sequential; got {type(other).__name__}')
        return self

    # --------------------------------------------------------------- copies

    def flatten(self) -> Sequential:
        """Returns a Sequential whose nested Sequentials are expanded in place."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    def copy(self, mode: str = 'share') -> Sequential:
        """Returns a copy; link layers are copied with ``Link.copy(mode)``.

        Args:
            mode: ``'share'``, ``'copy'`` or ``'init'`` (see :meth:`catena.Link.copy`).
        """
        _link._check_copy_mode(mode)
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, _link.Link):
                ret.append(layer.copy(mode))
            else:
                ret.append(_copy.copy(layer))
        return ret

    def __repr__(self) -> str:
        if not self._layers:
            return 'Sequential()'
        lines = ['Sequential(']
        for i, layer in enumerate(self._layers):
            lines.append(f'  ({i}): {_describe(layer)},'.replace('\n', '\n  '))
        lines.append(')')
        return '\n'.join(lines)

    def __getstate__(self) -> dict[str, Any]:
        for layer in self._layers:
            if _is_lambda(layer):
                raise ValueError('cannot pickle a Sequential with a lambda layer; use a '
                                 'function defined with def (or functools.partial) instead')
        return self.__dict__

    # Copies do not go through pickling (which refuses lambda layers).

    def __copy__(self) -> Sequential:
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Sequential:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            new.__dict__[key] = _copy.deepcopy(value, memo)
        return new
