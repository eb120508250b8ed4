"""CaffeFunction: a Caffe network emulated with catena links and functions."""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from catena import link, variable
from catena_zoo.caffe import _layers, _reader, _schema
from catena_zoo.caffe.errors import (
    CaffeFormatError,
    UnsupportedCaffeLayerError,
    UnsupportedCaffeLayerWarning,
)

#: The module of Caffe's protobuf messages (``caffe_pb.NetParameter``), under
#: the name Chainer's ``chainer.links.caffe.caffe_function`` gave it.
caffe_pb = _schema


class CaffeFunction(link.Chain):
    """Caffe emulator built from a binary ``.caffemodel`` file.

    The file's ``NetParameter`` is read in either of Caffe's formats: the
    current one (``layer``, type names such as ``'Convolution'``) or the V1
    one (``layers``, enum types such as ``CONVOLUTION``). Each layer with
    parameters becomes a child link named after the layer (Convolution,
    Deconvolution, InnerProduct, BatchNorm, Scale, PReLU), holding the
    stored weights; the other supported layers become catena functions.
    Calling the chain interprets the network layer by layer, so the result
    is an ordinary catena graph that can be backpropagated through.

    Supported types: AbsVal, BatchNorm, Concat, Convolution, Data (ignored),
    Deconvolution, Dropout, ELU, Eltwise, Flatten, InnerProduct, Input
    (ignored), LRN, Pooling, Power, PReLU, ReLU, Reshape, Scale, Sigmoid,
    Slice, Softmax, SoftmaxWithLoss, Split and TanH, plus the types other
    plugins add through the ``catena_caffe_layers`` hook.

    Layers of other types are skipped with an
    :class:`UnsupportedCaffeLayerWarning`, and so are Accuracy layers with
    a per-class second top; with ``strict=True`` they raise
    :class:`UnsupportedCaffeLayerError` instead. Another supported type in a
    configuration that cannot be emulated (stochastic pooling, 3-D
    convolution, ...) always raises :class:`UnsupportedCaffeLayerError` (a
    :class:`RuntimeError`, as in Chainer). Layers that are in-place in Caffe
    (``top`` equal to ``bottom``) work.

    .. admonition:: Example

       >>> func = CaffeFunction('bvlc_reference_caffenet.caffemodel')  # doctest: +SKIP
       >>> y, = func(inputs={'data': x}, outputs=['fc8'])  # doctest: +SKIP

    Args:
        model_path: Path to the binary ``.caffemodel`` file.
        strict: Raise on unsupported layers instead of warning and skipping.

    Attributes:
        forwards (dict): Layer name to its forward function (called with the
            layer's bottom variables).
        layers (list): ``(layer name, bottom blob names, top blob names)`` in
            execution order.
        split_map (dict): Each top blob of a Split layer, mapped to the
            bottom blob it copies.

    Raises:
        FileNotFoundError: If ``model_path`` does not exist.
        CaffeFormatError: If the file is not a readable caffemodel, or a
            layer's stored blobs do not fit the layer.
        UnsupportedCaffeLayerError: For a layer configuration that cannot
            be emulated, and with ``strict=True`` for a layer of an unknown
            type.
    """

    def __init__(self, model_path: str | os.PathLike[str], strict: bool = False) -> None:
        super().__init__()
        self.forwards: dict[str, Callable[..., Any]] = {}
        self.layers: list[tuple[str, list[str], list[str]]] = []
        self.split_map: dict[str, str] = {}
        self._steps: list[_Step] = []
        self._skipped: dict[str, str] = {}  # top blob -> the skipped layer that made it
        net = _reader.read_net_parameter(model_path)
        converters = _converter_table()
        if net.layer:
            entries = [(layer.type, layer, f'layer[{i}]') for i, layer in enumerate(net.layer)]
        else:
            entries = [(_v1_type_name(layer.type), layer, f'layers[{i}]')
                       for i, layer in enumerate(net.layers)]
        for type_name, layer, where in entries:
            converter = converters.get(type_name)
            if converter is None:
                self._unsupported(layer, type_name, f'CaffeFunction does not support '
                                  f'{type_name!r} layers', strict)
                continue
            try:
                converter(self, layer)
            except _layers.Skipped as err:
                self._unsupported(layer, type_name, str(err), strict)
            except _layers.Unsupported as err:
                raise UnsupportedCaffeLayerError(
                    f'layer {layer.name!r} (type {type_name}): {err}') from None
            except _layers.BadLayer as err:
                raise CaffeFormatError(model_path, f'{type_name} layer: {err}',
                                       f'{where} ({layer.name!r})') from None
            except (ArithmeticError, LookupError, TypeError, ValueError) as err:
                # Values no converter check foresaw: still the file's fault.
                raise CaffeFormatError(
                    model_path, f'{type_name} layer: its stored values do not make a layer '
                    f'({type(err).__name__}: {err})', f'{where} ({layer.name!r})') from err

    def add_layer(self, layer: Any, forward: Callable[..., Any],
                  child: link.Link | None = None) -> None:
        """Adds one layer's forward step (used by the layer converters).

        Args:
            layer: The layer's protobuf message (its ``name``, ``bottom`` and
                ``top`` are read).
            forward: Called with the bottom variables, preceded by the
                child link when ``child`` is given; returns one variable or a
                tuple (one per top).
            child: A link holding the layer's parameters, registered as a
                child named after the layer, or None.

        Raises:
            ValueError: If ``child`` is given and the layer's name is empty,
                already used by another child, or an attribute of the chain.
        """
        name = str(layer.name)
        if child is not None:
            if not name or name in self._children or hasattr(self, name):
                raise ValueError(f'cannot register the parameters of layer {name!r}: the name '
                                 'is empty, repeated, or an attribute of CaffeFunction')
            with self.init_scope():
                setattr(self, name, child)
        step = _Step(name, forward, child is not None)
        self.forwards[name] = functools.partial(step.call, self)
        self.layers.append((name, list(layer.bottom), list(layer.top)))
        self._steps.append(step)

    def forward(self, inputs: Mapping[str, Any], outputs: Iterable[str],
                disable: Iterable[str] = (), **kwargs: Any) -> tuple[Any, ...]:
        """Runs the part of the network that the given inputs reach.

        Layers run in the file's order; a layer runs when all its bottom
        blobs are known (given or computed) and it is not disabled.

        Args:
            inputs: Blob name to its value (Variable or array), e.g.
                ``{'data': x}``.
            outputs: Names of the blobs to return, e.g. ``['fc8']``.
            disable: Names of layers to leave out (e.g. ``['loss']``).

        Returns:
            A tuple of the variables of ``outputs``, in that order.

        Raises:
            TypeError: If ``inputs`` is not a mapping or ``outputs`` is a
                string.
            KeyError: If a requested output was not computed.
        """
        if kwargs:
            if 'train' in kwargs:
                raise ValueError("the train argument is not supported; use "
                                 "catena.using_config('train', ...)")
            raise TypeError(f'unexpected keyword arguments: {sorted(kwargs)}')
        if not isinstance(inputs, Mapping):
            raise TypeError(f'inputs must be a mapping from blob names to variables, e.g. '
                            f"{{'data': x}}; got {type(inputs).__name__}")
        if isinstance(outputs, str):
            raise TypeError(f'outputs must be a list of blob names, e.g. [{outputs!r}], not '
                            'a string')
        outputs = list(outputs)
        disabled = set(disable)
        values = {name: variable.as_variable(value) if not isinstance(value, variable.Variable)
                  else value for name, value in inputs.items()}
        for (name, bottoms, tops), step in zip(self.layers, self._steps):
            if name in disabled or any(blob not in values for blob in bottoms):
                continue
            results = step.call(self, *(values[blob] for blob in bottoms))
            if not isinstance(results, (tuple, list)):
                results = (results,)
            for top, result in zip(tops, results):
                values[top] = result
        missing = [blob for blob in outputs if blob not in values]
        if missing:
            raise KeyError(f'blob {missing[0]!r} was not computed: '
                           f'{self._why_missing(missing[0], values, disabled)}')
        return tuple(values[blob] for blob in outputs)

    def _unsupported(self, layer: Any, type_name: str, reason: str, strict: bool) -> None:
        message = f'layer {layer.name!r} (type {type_name}): {reason}'
        if strict:
            raise UnsupportedCaffeLayerError(message)
        warnings.warn(f'{message}; the layer is skipped', UnsupportedCaffeLayerWarning,
                      stacklevel=3)
        for top in layer.top:
            self._skipped[top] = str(layer.name)

    def _why_missing(self, blob: str, values: Mapping[str, Any], disabled: set[str],
                     seen: frozenset[str] = frozenset()) -> str:
        """Explains, back to the first cause, why ``blob`` was not computed."""
        makers = [(name, bottoms) for name, bottoms, tops in self.layers if blob in tops]
        if not makers:
            if blob in self._skipped:
                return (f'layer {self._skipped[blob]!r}, which produces {blob!r}, was skipped '
                        'as unsupported')
            return f'{blob!r} is not among the inputs and no layer of this network produces it'
        name, bottoms = makers[0]
        if name in disabled:
            return f'layer {name!r}, which produces {blob!r}, is disabled'
        missing = [b for b in bottoms if b not in values and b not in seen]
        if not missing:
            return f'the inputs {sorted(values)} do not reach layer {name!r}'
        cause = self._why_missing(missing[0], values, disabled, seen | {blob})
        return f'layer {name!r}, which produces {blob!r}, needs {missing[0]!r}; {cause}'


class _Step:
    """One layer's forward function, with its child link looked up at call time."""

    def __init__(self, name: str, function: Callable[..., Any], has_child: bool) -> None:
        self.name = name
        self.function = function
        self.has_child = has_child

    def call(self, owner: CaffeFunction, *xs: Any) -> Any:
        if self.has_child:
            return self.function(owner[self.name], *xs)
        return self.function(*xs)


def _v1_type_name(value: int) -> str:
    enum = _schema.V1LayerParameter.LayerType
    try:
        name = enum.Name(value)
    except ValueError:
        return f'V1 type {value}'
    return _layers.V1_TYPE_NAMES.get(name, name)


def _converter_table() -> dict[str, Callable[[Any, Any], None]]:
    table = dict(_plugin_converters())
    table.update(_layers.CONVERTERS)  # the built-in converters take precedence
    return table


@functools.lru_cache(maxsize=1)
def _plugin_converters() -> dict[str, Callable[[Any, Any], None]]:
    """Converters that plugins add through the ``catena_caffe_layers`` hook (first one wins)."""
    from catena.plugins import get_plugin_manager

    hook = getattr(get_plugin_manager().hook, 'catena_caffe_layers', None)
    if hook is None:
        return {}
    table: dict[str, Callable[[Any, Any], None]] = {}
    for converters in hook():
        for type_name, converter in (converters or {}).items():
            table.setdefault(type_name, converter)
    return table
