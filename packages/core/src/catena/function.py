"""The old-style :class:`Function` (arrays in, arrays out) and its adapter.

New code should subclass :class:`~catena.FunctionNode`. An old-style function
computes its backward pass on arrays, so its gradients cannot be
differentiated again.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy

from catena import backend
from catena.backends import _registry
from catena.configuration import config
from catena.function_node import FunctionNode
from catena.variable import Variable


class FunctionAdapter(FunctionNode):
    """Runs an old-style :class:`Function` as a node of the graph.

    Args:
        function: The function to adapt.
    """

    def __init__(self, function: Function) -> None:
        self._function = function

    @property
    def function(self) -> Function:
        """The adapted old-style function."""
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    @property
    def _impl_name(self) -> str:
        return self._function.__class__.__name__

    def check_type_forward(self, in_types: Any) -> None:
        self._function.check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        function = self._function
        function._input_indexes_to_retain = None
        function._output_indexes_to_retain = None
        outputs = function.forward(inputs)
        if not isinstance(outputs, tuple):
            raise TypeError(f'forward output must be a tuple ({self.label})\n'
                            f'Actual: {type(outputs)}')
        retained = function._input_indexes_to_retain
        self.retain_inputs(range(len(inputs)) if retained is None else retained)
        if function._output_indexes_to_retain is not None:
            self.retain_outputs(function._output_indexes_to_retain)
        return outputs

    def backward(self, target_input_indexes: tuple[int, ...],
                 grad_outputs: tuple[Variable | None, ...]) -> tuple[Variable | None, ...]:
        in_data = tuple(x.data for x in self.inputs or ())
        # A gradient that does not reach an output is None, as in Chainer.
        grad_data = [None if gy is None else gy.array for gy in grad_outputs]
        arrays = [a for a in in_data + tuple(grad_data) if a is not None]
        device = backend.get_device_from_array(arrays[0]) if arrays else None
        if device is not None:
            with device.create_context():
                gxs = self._function.backward(in_data, tuple(grad_data))
        else:
            gxs = self._function.backward(in_data, tuple(grad_data))
        if not isinstance(gxs, tuple):
            gxs = tuple(gxs)
        ret: list[Variable | None] = []
        for i in target_input_indexes:
            gx = gxs[i]
            if gx is None:
                ret.append(None)
                continue
            if _registry.device_type_of(gx) is None or isinstance(gx, numpy.generic):
                raise TypeError(
                    f'Function `{type(self._function).__name__}` ({self.label}) returned a '
                    f'gradient of type {type(gx).__name__} for input {i}; the backward of an '
                    'old-style Function must return arrays (or None)')
            variable = Variable(gx, requires_grad=False)
            if config.enable_backprop:
                # Double backprop: this gradient has no graph behind it.
                variable.node._old_style_grad_generator = self.label
            ret.append(variable)
        return tuple(ret)


class Function:
    """An old-style differentiable function on arrays (Chainer v1 API).

    A subclass implements ``forward`` (or ``forward_cpu``/``forward_gpu``) and
    ``backward`` (or ``backward_cpu``/``backward_gpu``) on arrays. By default
    all inputs are retained for backward; call :meth:`retain_inputs` in
    ``forward`` to retain fewer.
    """

    _node: weakref.ref | None = None
    # Until the function is applied it owns its node, so that hooks added
    # beforehand (add_hook) stay on it; afterwards the graph owns the node.
    _owned_node: FunctionAdapter | None = None
    _input_indexes_to_retain: Any = None
    _output_indexes_to_retain: Any = None

    def __call__(self, *inputs: Any) -> Any:
        """Applies the function; returns a Variable, or a tuple for several outputs."""
        node = self.node
        self._owned_node = None
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` that places this function in the graph."""
        node = None if self._node is None else self._node()
        if node is None:
            node = FunctionAdapter(self)
            self._node = weakref.ref(node)
            self._owned_node = node
        return node

    @property
    def label(self) -> str:
        return type(self).__name__

    @property
    def inputs(self) -> Any:
        """The input VariableNodes of the last application."""
        return self.node.inputs

    @property
    def outputs(self) -> Any:
        """Weak references to the output VariableNodes of the last application."""
        return self.node.outputs

    @property
    def rank(self) -> int:
        return self.node.rank

    @property
    def stack(self) -> Any:
        return self.node.stack

    @property
    def local_function_hooks(self) -> dict[str, Any]:
        return self.node.local_function_hooks

    def add_hook(self, hook: Any, name: str | None = None) -> None:
        """Registers a function hook on this function only."""
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        """Removes a local function hook."""
        self.node.delete_hook(name)

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The retained output arrays (None where not retained)."""
        return self.node.output_data()

    def check_type_forward(self, in_types: Any) -> None:
        """Checks the input types (default: none)."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Computes the outputs; the default calls ``forward_cpu`` or ``forward_gpu``."""
        arrays = [x for x in inputs if x is not None]
        device_type = _registry.device_type_of(arrays[0]) if arrays else None
        method = device_type.legacy_forward if device_type is not None else 'forward_cpu'
        return getattr(self, method)(inputs)  # type: ignore[no-any-return]

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_cpu')

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_gpu')

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> Any:
        """Computes input gradients (arrays); the default calls ``backward_cpu``/``_gpu``."""
        arrays = [a for a in inputs + grad_outputs if a is not None]
        device_type = _registry.device_type_of(arrays[0]) if arrays else None
        forward_name = device_type.legacy_forward if device_type is not None else 'forward_cpu'
        return getattr(self, forward_name.replace('forward', 'backward'))(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> Any:
        return (None,) * len(inputs)

    def backward_gpu(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> Any:
        return (None,) * len(inputs)

    def retain_inputs(self, indexes: Any) -> None:
        """Retains only the given inputs for backward (call in forward)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes: Any, retain_after_backward: bool = False) -> None:
        """Retains the given outputs for backward (call in forward)."""
        self._output_indexes_to_retain = tuple(indexes)

    def unchain(self) -> None:
        """Cuts the function out of the graph."""
        self.node.unchain()
