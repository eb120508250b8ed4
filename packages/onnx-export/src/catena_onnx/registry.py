"""Converters keyed by FunctionNode class, each valid for a range of opsets.

Built-in converters register with the :func:`converter` decorator; plugins
contribute theirs through the ``catena_onnx_converters`` hook; one export can
add more with ``external_converters``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from catena_onnx._opsets import MINIMUM_OPSET_VERSION

ConvertFunction = Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class Converter:
    """A conversion of one FunctionNode class for the opsets ``min_opset..max_opset``.

    Attributes:
        func_class: The :class:`catena.FunctionNode` subclass it converts.
        convert: ``convert(ctx)`` appends the nodes (see
            :class:`catena_onnx.context.ConversionContext`).
        min_opset: The oldest opset it writes.
        max_opset: The newest opset it writes (None: every newer one).
        param_names: Names for the function's inputs by position (None or a
            missing entry: no name). A constant input with a name becomes the
            initializer ``<function>_<n>_param_<name>``, as onnx-chainer named
            them (e.g. ``FixedBatchNormalization_0_param_avg_mean``); other
            constants are ``Constant``, ``Constant_1``, ...
    """

    func_class: type
    convert: ConvertFunction
    min_opset: int = MINIMUM_OPSET_VERSION
    max_opset: int | None = None
    param_names: tuple[str | None, ...] = ()

    def supports(self, opset: int) -> bool:
        """Whether this converter writes ``opset``."""
        return self.min_opset <= opset and (self.max_opset is None or opset <= self.max_opset)


_builtin: list[Converter] = []


def converter(*func_classes: type, opset: tuple[int, int | None] = (MINIMUM_OPSET_VERSION, None),
              param_names: tuple[str | None, ...] = ()
              ) -> Callable[[ConvertFunction], ConvertFunction]:
    """Registers the decorated function as a built-in converter.

    Args:
        func_classes: The FunctionNode classes it converts.
        opset: ``(oldest, newest)`` opset it writes; newest None is open.
        param_names: Names of the inputs, for constant ones (see
            :attr:`Converter.param_names`).

    Returns:
        The decorator (the function is returned unchanged).
    """
    def register(convert: ConvertFunction) -> ConvertFunction:
        for func_class in func_classes:
            _builtin.append(Converter(func_class, convert, opset[0], opset[1], param_names))
        return convert
    return register


def _as_converters(func_class: Any, value: Any, origin: str) -> list[Converter]:
    if isinstance(value, Converter):
        return [value]
    if isinstance(value, (list, tuple)):
        return [c for item in value for c in _as_converters(func_class, item, origin)]
    if callable(value) and isinstance(func_class, type):
        return [Converter(func_class, value)]
    raise TypeError(
        f'{origin}: a converter must be a catena_onnx.Converter, a list of them, or a '
        f'callable keyed by a FunctionNode class; got {func_class!r}: {value!r}')


def function_name(func: Any) -> str:
    """The name converters are keyed by: a wrapped function's name, else the class name."""
    return str(getattr(func, 'custom_function_node_name', None) or type(func).__name__)


class ConverterTable:
    """Finds the converter for a FunctionNode class and an opset.

    Later sources override earlier ones: built-ins, then plugins, then the
    converters given to one export.
    """

    def __init__(self, converters: Iterable[Converter] = ()) -> None:
        self._by_class: dict[type, list[Converter]] = {}
        self._by_name: dict[str, list[Converter]] = {}
        for item in converters:
            self.add(item)

    def add(self, item: Converter) -> None:
        """Adds a converter in front of those already known for its class."""
        self._by_class.setdefault(item.func_class, []).insert(0, item)

    def add_by_name(self, label: str, convert: ConvertFunction) -> None:
        """Adds a converter for every FunctionNode whose class name (a wrapped function's
        name) or label is ``label``."""
        self._by_name.setdefault(label, []).insert(0, Converter(object, convert))

    def lookup(self, func: Any, opset: int) -> Converter | None:
        """Returns the converter for ``func`` (a node) at ``opset``, or None."""
        if self._by_name:
            for name in (function_name(func), getattr(func, 'label', '')):
                by_name = self._by_name.get(name)
                if by_name:
                    return by_name[0]
        for cls in type(func).__mro__:
            for item in self._by_class.get(cls, ()):
                if item.supports(opset):
                    return item
        return None

    def opset_range(self, func_class: type) -> tuple[int, int | None] | None:
        """Returns the opsets ``func_class`` can be written in, or None."""
        items = self._by_class.get(func_class)
        if not items:
            return None
        low = min(item.min_opset for item in items)
        highs = [item.max_opset for item in items]
        return low, None if None in highs else max(h for h in highs if h is not None)

    def classes(self) -> list[type]:
        """Every FunctionNode class with a converter."""
        return list(self._by_class)

    def with_external(self, external: Mapping[Any, Any] | None) -> ConverterTable:
        """Returns a copy that also holds ``external`` (class or label to converter)."""
        table = ConverterTable()
        table._by_class = {key: list(value) for key, value in self._by_class.items()}
        table._by_name = {key: list(value) for key, value in self._by_name.items()}
        for key, value in (external or {}).items():
            if isinstance(key, str):
                if not callable(value):
                    raise TypeError(f'external_converters[{key!r}] must be callable, '
                                    f'got {value!r}')
                table.add_by_name(key, value)
            else:
                for item in _as_converters(key, value, 'external_converters'):
                    table.add(item)
        return table


_default_table: ConverterTable | None = None


def default_table() -> ConverterTable:
    """The built-in converters plus those of every plugin (built once)."""
    global _default_table
    if _default_table is None:
        import catena_onnx.converters  # noqa: F401 - registers the built-ins

        table = ConverterTable(_builtin)
        from catena.plugins import _manager

        for plugin, contribution in _manager.call_each('catena_onnx_converters'):
            for func_class, value in (contribution or {}).items():
                origin = f'the catena_onnx_converters hook of plugin {plugin!r}'
                for item in _as_converters(func_class, value, origin):
                    table.add(item)
        _default_table = table
    return _default_table


_substitutions: list[tuple[str, str, Callable[[Any], Any]]] = []


def substitute_while_tracing(module: str, attribute: str,
                             wrap: Callable[[Any], Any]) -> None:
    """Replaces ``module.attribute`` by ``wrap(original)`` while export traces a model.

    Built-in converters use it to record a composite function (for example
    ``n_step_lstm``, built from many FunctionNodes) as one node that has a
    single ONNX operator (with :func:`catena_onnx.replace_func.fake_as_funcnode`).

    Args:
        module: The module's dotted name.
        attribute: The attribute to replace.
        wrap: Called with the original; returns the replacement.
    """
    _substitutions.append((module, attribute, wrap))


@contextlib.contextmanager
def substitutions_applied() -> Iterator[None]:
    """Applies every registered substitution for the duration of the block."""
    default_table()
    saved = []
    try:
        for module_name, attribute, wrap in _substitutions:
            module = importlib.import_module(module_name)
            original = getattr(module, attribute)
            saved.append((module, attribute, original))
            setattr(module, attribute, wrap(original))
        yield
    finally:
        for module, attribute, original in reversed(saved):
            setattr(module, attribute, original)
