"""Runs a model once and records the FunctionNodes that compute its outputs.

Recording uses a :class:`catena.FunctionHook`, which sees every node with
the arrays it received; the graph the forward pass builds then tells which
of them lead to the outputs and how they connect.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy

import catena
from catena.function_hook import FunctionHook
from catena_onnx.errors import ModelOutputTypeError, OutputItemTypeError


@dataclasses.dataclass
class TracedCall:
    """One FunctionNode application that the outputs depend on."""

    func: Any
    in_data: tuple[Any, ...]
    input_nodes: tuple[Any, ...]
    output_nodes: tuple[Any, ...]  # None where the output was dropped unused


@dataclasses.dataclass
class Trace:
    """The recorded forward pass of a model.

    Attributes:
        inputs: ``(key, Variable)`` per graph input (key: position or name).
        outputs: ``(key, Variable)`` per graph output.
        calls: The nodes the outputs depend on, in the order they ran.
    """

    inputs: list[tuple[Any, Any]]
    outputs: list[tuple[Any, Any]]
    calls: list[TracedCall]


class _Recorder(FunctionHook):
    name = 'catena_onnx_trace'

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple[Any, ...]]] = []

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.calls.append((function, in_data))


def _as_graph_input(arg: Any, where: str) -> Any:
    if isinstance(arg, catena.Variable):
        arg = arg.array
    if not hasattr(arg, 'shape') or not hasattr(arg, 'dtype'):
        raise TypeError(f'{where} must be an array or a Variable, got {type(arg).__name__}')
    return catena.Variable(arg, requires_grad=True)


def wrap_args(args: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    """Turns ``args`` into fresh graph-input Variables.

    Returns:
        ``(call_args, inputs)``: what to call the model with (a list for
        positional arguments, a dict for keyword ones), and ``(key, Variable)``
        per input.
    """
    if isinstance(args, Mapping):
        wrapped = {key: _as_graph_input(value, f'args[{key!r}]') for key, value in args.items()}
        return wrapped, list(wrapped.items())
    if isinstance(args, (list, tuple)):
        positional = [_as_graph_input(value, f'args[{i}]') for i, value in enumerate(args)]
        return positional, list(enumerate(positional))
    single = _as_graph_input(args, 'args')
    return [single], [(0, single)]


def _flatten_outputs(outputs: Any) -> list[tuple[Any, Any]]:
    if isinstance(outputs, catena.Variable):
        return [(0, outputs)]
    if isinstance(outputs, Mapping):
        items = list(outputs.items())
    elif isinstance(outputs, (list, tuple)):
        items = list(enumerate(outputs))
    else:
        raise ModelOutputTypeError('the model must return a Variable, or a list, tuple or '
                                   f'dict of Variables; it returned {type(outputs).__name__}')
    for key, value in items:
        if not isinstance(value, catena.Variable):
            raise OutputItemTypeError(f'output {key!r} of the model is a '
                                      f'{type(value).__name__}, not a Variable; only Variables '
                                      'can be exported')
    return items


def trace(model: Any, args: Any, train: bool = False) -> Trace:
    """Runs ``model`` on ``args`` and records what computes its outputs.

    Args:
        model: A callable (usually a :class:`catena.Chain`).
        args: An array or Variable, a list or tuple of them (positional
            arguments), or a dict (keyword arguments).
        train: The value of ``catena.config.train`` during the pass.

    Returns:
        Trace: The graph inputs, outputs and the calls between them.
    """
    call_args, inputs = wrap_args(args)
    recorder = _Recorder()
    from catena_onnx.registry import substitutions_applied

    with catena.using_config('train', train), catena.using_config('enable_backprop', True), \
            substitutions_applied(), recorder:
        outputs = model(**call_args) if isinstance(call_args, dict) else model(*call_args)
    flat_outputs = _flatten_outputs(outputs)

    needed: set[int] = set()
    stack = [variable.node.creator_node for _, variable in flat_outputs]
    while stack:
        func = stack.pop()
        if func is None or id(func) in needed:
            continue
        needed.add(id(func))
        stack.extend(node.creator_node for node in func.inputs or ())

    calls = []
    for func, in_data in recorder.calls:
        if id(func) not in needed or func.inputs is None:
            continue
        output_nodes = tuple(ref() for ref in func.outputs or ())
        calls.append(TracedCall(func, in_data, tuple(func.inputs), output_nodes))
    if len(calls) != len(needed):
        raise RuntimeError(
            'some functions that compute the outputs ran outside the traced forward pass (the '
            'model returned a Variable computed before export was called?)')
    return Trace(inputs, flat_outputs, calls)


def host_array(array: Any) -> numpy.ndarray:
    """Returns ``array`` as a NumPy array (copied from a device when needed)."""
    return numpy.asarray(catena.backend.CpuDevice().send(array))
