"""Tracing a model's forward pass into an ordered list of function calls.

The model runs once in test mode under a :class:`~catena.FunctionHook` that
keeps every FunctionNode's input arrays (nodes release the arrays they do
not retain, and the exporter needs them all: weights, and also the running
statistics that batch normalization receives as plain arrays). The graph is
then walked back from the outputs to the inputs and the nodes are put in a
topological order, inputs first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from catena import configuration, variable
from catena.function_hook import FunctionHook
from catena.function_node import FunctionNode
from catena.functions.pooling.max_pooling_2d import MaxPooling2D
from catena.variable_node import VariableNode

#: Labels that Chainer 7's own functions give the node a catena class stands
#: for, where the two differ (Chainer's ``max_pooling_2d`` builds a
#: ``MaxPoolingND``). Layer names are built from them, so that a network
#: exported from catena names its blobs as the same network exported from
#: Chainer does.
CHAINER_LABELS: dict[type, str] = {MaxPooling2D: 'MaxPoolingND'}


@dataclasses.dataclass
class Call:
    """One FunctionNode of the traced graph.

    Attributes:
        node: The FunctionNode.
        name: Its layer name, Chainer's ``'<label>-<rank>-<count>'``.
        in_data: The input arrays it was applied to.
        sources: For each input, where its value comes from: ``('input',
            blob name)`` for an argument of the model, ``('call', blob name)``
            for the output of another traced node, or ``('constant', None)``
            for anything else (parameters, fixed arrays).
        out_shapes: The shapes of its outputs (None where unknown).
    """

    node: FunctionNode
    name: str
    in_data: tuple[Any, ...]
    sources: list[tuple[str, str | None]]
    out_shapes: list[tuple[int, ...] | None]


@dataclasses.dataclass
class Trace:
    """The traced graph.

    Attributes:
        inputs: ``(blob name, shape)`` of each argument of the model.
        calls: The function nodes, each after the nodes it reads from.
        outputs: The blob name of each output of the model.
    """

    inputs: list[tuple[str, tuple[int, ...]]]
    calls: list[Call]
    outputs: list[str]


class _KeepInputs(FunctionHook):
    """Keeps each node applied in its block together with its input arrays."""

    name = 'catena_zoo.exporters.caffe'

    def __init__(self) -> None:
        self.in_data: dict[int, tuple[FunctionNode, tuple[Any, ...]]] = {}

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.in_data[id(function)] = (function, tuple(in_data))


def input_names(count: int) -> list[str]:
    """Returns the blob names of ``count`` model inputs (``'data'`` for one, as Chainer)."""
    if count == 1:
        return ['data']
    return [f'data_{i}' for i in range(count)]


def trace(model: Any, arrays: Sequence[Any]) -> Trace:
    """Runs ``model`` on ``arrays`` in test mode and returns its graph.

    Args:
        model: A callable (usually a Chain) taking one argument per array.
        arrays: The input arrays.

    Returns:
        The traced graph.

    Raises:
        TypeError: If the model returns something other than a Variable or
            a tuple/list of Variables.
    """
    inputs = [variable.Variable(array) for array in arrays]
    hook = _KeepInputs()
    with configuration.using_config('train', False), \
            configuration.using_config('enable_backprop', True), hook:
        result = model(*inputs)
    outputs = _output_variables(result)
    names = input_names(len(inputs))
    input_blobs = {id(x.node): name for x, name in zip(inputs, names)}
    order = _topological_order([y.node for y in outputs], input_blobs, hook.in_data)
    calls = _name_calls(order, input_blobs, hook.in_data)
    blob_of_call = {id(call.node): call.name for call in calls}
    output_blobs = []
    for y in outputs:
        node = y.node
        if id(node) in input_blobs:
            output_blobs.append(input_blobs[id(node)])
        elif node.creator_node is not None and id(node.creator_node) in blob_of_call:
            output_blobs.append(blob_of_call[id(node.creator_node)])
        else:
            raise ValueError('an output of the model is not computed from its arguments '
                             '(it is a parameter or a constant), so no Caffe layer makes it')
    return Trace([(name, tuple(x.shape)) for x, name in zip(inputs, names)], calls,
                 output_blobs)


def _output_variables(result: Any) -> list[variable.Variable]:
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if not items or not all(isinstance(y, variable.Variable) for y in items):
        kinds = ', '.join(type(y).__name__ for y in items) or 'an empty sequence'
        raise TypeError('the model must return a Variable or a tuple/list of Variables; '
                        f'it returned {type(result).__name__} ({kinds})')
    return items


def _traced_creator(node: VariableNode, input_blobs: dict[int, str],
                    kept: dict[int, Any]) -> FunctionNode | None:
    """The node that made ``node`` during the traced run, or None for a leaf."""
    if id(node) in input_blobs:
        return None
    creator = node.creator_node
    if creator is None or id(creator) not in kept:
        return None  # made before the export (or never): a constant here
    return creator


def _topological_order(roots: list[VariableNode], input_blobs: dict[int, str],
                       kept: dict[int, Any]) -> list[FunctionNode]:
    """Depth-first post-order from the outputs: every node after its inputs' creators."""
    order: list[FunctionNode] = []
    done: set[int] = set()
    for root in roots:
        first = _traced_creator(root, input_blobs, kept)
        if first is None or id(first) in done:
            continue
        stack: list[tuple[FunctionNode, int]] = [(first, 0)]
        entered = {id(first)}
        while stack:
            function, index = stack.pop()
            inputs = function.inputs or ()
            if index < len(inputs):
                stack.append((function, index + 1))
                creator = _traced_creator(inputs[index], input_blobs, kept)
                if creator is not None and id(creator) not in done \
                        and id(creator) not in entered:
                    entered.add(id(creator))
                    stack.append((creator, 0))
                continue
            done.add(id(function))
            order.append(function)
    return order


def _name_calls(order: list[FunctionNode], input_blobs: dict[int, str],
                kept: dict[int, tuple[FunctionNode, tuple[Any, ...]]]) -> list[Call]:
    counts: dict[tuple[str, int], int] = {}
    names: dict[int, str] = {}
    calls = []
    for function in order:
        label = CHAINER_LABELS.get(type(function), function.label)
        key = (label, function.rank)
        counts[key] = counts.get(key, 0) + 1
        name = f'{label}-{function.rank}-{counts[key]}'
        names[id(function)] = name
        sources: list[tuple[str, str | None]] = []
        for node in function.inputs or ():
            creator = _traced_creator(node, input_blobs, kept)
            if id(node) in input_blobs:
                sources.append(('input', input_blobs[id(node)]))
            elif creator is not None:
                sources.append(('call', names[id(creator)]))
            else:
                sources.append(('constant', None))
        out_shapes = []
        for ref in function.outputs or ():
            out = ref()
            out_shapes.append(None if out is None or out.shape is None else tuple(out.shape))
        calls.append(Call(function, name, kept[id(function)][1], sources, out_shapes))
    return calls
