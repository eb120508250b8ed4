"""What a converter works with: the graph being built and one traced FunctionNode.

A converter is a function ``convert(ctx)`` that appends ONNX nodes computing
``ctx.outputs`` from ``ctx.inputs`` (both ONNX value names)::

    @converter(ReLU)
    def convert_relu(ctx):
        ctx.node('Relu', ctx.inputs, ctx.outputs)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy


class GraphBuilder:
    """Collects the nodes and initializers of one ONNX graph and keeps names unique."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._names: set[str] = set()
        self._counts: dict[str, int] = {}

    def reserve(self, name: str) -> str:
        """Claims ``name`` exactly; it must not be taken."""
        if name in self._names:
            raise ValueError(f'the ONNX value name {name!r} is used twice')
        self._names.add(name)
        return name

    def unique(self, hint: str) -> str:
        """Returns a new name built from ``hint`` (``hint``, ``hint_1``, ...)."""
        count = self._counts.get(hint, 0)
        name = hint if count == 0 else f'{hint}_{count}'
        while name in self._names:
            count += 1
            name = f'{hint}_{count}'
        self._counts[hint] = count + 1
        self._names.add(name)
        return name

    def add_initializer(self, array: Any, name: str) -> str:
        """Adds a constant tensor under the (already reserved) ``name``."""
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(numpy.asarray(array, order='C'), name))
        return name

    def add_constant(self, array: Any, name: str) -> str:
        """Appends a ``Constant`` node whose output, the (already reserved) ``name``,
        holds ``array``."""
        from onnx import helper, numpy_helper

        tensor = numpy_helper.from_array(numpy.asarray(array, order='C'), name)
        self.nodes.append(helper.make_node('Constant', [], [name], name=self.unique('Constant'),
                                           value=tensor))
        return name

    def add_node(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str],
                 domain: str = '', **attributes: Any) -> Any:
        """Appends one NodeProto (attributes equal to None are left out)."""
        from onnx import helper

        attributes = {key: value for key, value in attributes.items() if value is not None}
        node = helper.make_node(op_type, list(inputs), list(outputs),
                                name=self.unique(op_type), domain=domain or None, **attributes)
        self.nodes.append(node)
        return node


class ConversionContext:
    """One traced FunctionNode, as its converter sees it.

    Attributes:
        func: The :class:`catena.FunctionNode` (its attributes hold the
            function's parameters, e.g. ``func.axis``).
        opset: The opset version of the default domain being written.
        inputs: The ONNX names of the function's inputs, in order.
        outputs: The ONNX names the converter must compute, in order.
        input_arrays: The arrays the function received while tracing (their
            shapes, dtypes, and values where an input is a constant).
        output_shapes: The shapes of the outputs while tracing.
        output_dtypes: The dtypes of the outputs while tracing.
        dynamic: Whether some graph input has a dynamic axis; converters then
            avoid baking traced sizes into the graph where they can.
        graph_inputs: The graph inputs' names, keyed by ``id`` of their traced
            arrays (see :meth:`graph_input`).
    """

    def __init__(self, builder: GraphBuilder, func: Any, opset: int,
                 inputs: Sequence[str], outputs: Sequence[str],
                 input_arrays: Sequence[Any], output_shapes: Sequence[tuple[int, ...] | None],
                 output_dtypes: Sequence[Any], constant_inputs: Sequence[bool] = (),
                 dynamic: bool = False, func_name: str | None = None,
                 graph_inputs: dict[int, tuple[Any, str]] | None = None) -> None:
        self.builder = builder
        self.func = func
        self.opset = opset
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.input_arrays = tuple(input_arrays)
        self.output_shapes = tuple(output_shapes)
        self.output_dtypes = tuple(output_dtypes)
        self.constant_inputs = tuple(constant_inputs) or (False,) * len(self.inputs)
        self.dynamic = dynamic
        self.func_name = func_name or f'{self.label}_0'
        self.graph_inputs = graph_inputs or {}
        self._input_names = list(self.inputs)
        self._output_names = list(self.outputs)

    def graph_input(self, array: Any) -> str | None:
        """The name of the graph input whose traced array is ``array`` itself, else None.

        A node that holds an array as an attribute (e.g. ``Permutate.indices``)
        uses it to read that array from the graph input at run time rather than
        bake the traced value into the graph.
        """
        entry = self.graph_inputs.get(id(array))
        return entry[1] if entry is not None and entry[0] is array else None

    @property
    def input_names(self) -> list[str]:
        """The inputs' names as a list that the converter may extend (onnx-chainer's
        name for :attr:`inputs`)."""
        return self._input_names

    @property
    def output_names(self) -> list[str]:
        """The outputs' names as a list (onnx-chainer's name for :attr:`outputs`)."""
        return self._output_names

    @property
    def context(self) -> ConversionContext:
        """The context itself (onnx-chainer's converters reach ``add_const`` through it)."""
        return self

    def add_const(self, array: Any, name: str) -> str:
        """Adds a constant tensor named after the function and ``name``; returns its name.

        Args:
            array: The value.
            name: A name hint, unique within the function.
        """
        return self.const(numpy.asarray(array), hint=f'{self.func_name}_const_{name}')

    def add_param(self, array: Any, name: str, use_original_name: bool = False) -> str:
        """Adds a parameter tensor (an initializer) and returns its name.

        Args:
            array: The value.
            name: A name hint.
            use_original_name: Use ``name`` as it is instead of prefixing
                the function's name.
        """
        hint = name if use_original_name else f'{self.func_name}_param_{name}'
        return self.builder.add_initializer(numpy.asarray(array), self.builder.unique(hint))

    @property
    def opset_version(self) -> int:
        """The opset (onnx-chainer's name for :attr:`opset`)."""
        return self.opset

    @property
    def label(self) -> str:
        """The function's label (its class name by default)."""
        return str(self.func.label)

    def temp(self, hint: str | None = None) -> str:
        """Returns a fresh name for an intermediate value."""
        return self.builder.unique(hint or f'{self.label}_tmp')

    def node(self, op_type: str, inputs: Sequence[str], outputs: Sequence[str] | int | None = None,
             domain: str = '', **attributes: Any) -> str | list[str]:
        """Appends a node and returns its output name (a list when it has several).

        Args:
            op_type: The ONNX operator.
            inputs: The input names ('' for an omitted optional input).
            outputs: The output names, a number of fresh outputs, or None for
                one fresh output.
            domain: The operator's domain ('' is the default ONNX domain).
            attributes: The node's attributes; those equal to None are omitted.

        Returns:
            The single output name, or the list of names.
        """
        if outputs is None:
            names = [self.temp(f'{self.label}_{op_type}')]
        elif isinstance(outputs, int):
            names = [self.temp(f'{self.label}_{op_type}') for _ in range(outputs)]
        else:
            names = list(outputs)
        self.builder.add_node(op_type, inputs, names, domain=domain, **attributes)
        return names[0] if len(names) == 1 else names

    def op(self, op_type: str, inputs: Sequence[str], out: str | None = None,
           domain: str = '', **attributes: Any) -> str:
        """Appends a node with one output and returns the output's name.

        Args:
            op_type: The ONNX operator.
            inputs: The input names.
            out: The output name (default: a fresh one).
            domain: The operator's domain.
            attributes: The node's attributes; those equal to None are omitted.
        """
        name = out if out is not None else self.temp(f'{self.label}_{op_type}')
        self.builder.add_node(op_type, inputs, [name], domain=domain, **attributes)
        return name

    def const(self, value: Any, dtype: Any = None, hint: str | None = None) -> str:
        """Adds a constant tensor and returns its name.

        The tensor is a ``Constant`` node. Before opset 9, where ``Constant``
        holds only floats, integers and booleans are a double ``Constant``
        and a ``Cast`` (an initializer beyond 2**53).

        Args:
            value: An array or a Python scalar or sequence.
            dtype: Its dtype (default: the value's own; Python ints become
                int64 and floats float32).
            hint: A name hint.
        """
        array = numpy.asarray(value, dtype=dtype)
        if dtype is None and array.dtype == numpy.float64 and not isinstance(value, numpy.ndarray):
            array = array.astype(numpy.float32)
        name = self.builder.unique(hint or f'{self.label}_const')
        if self.opset >= 9 or array.dtype.kind == 'f':
            return self.builder.add_constant(array, name)
        # Constant holds only floats before opset 9: a double Constant and a Cast,
        # where every value is exact in double, else an initializer.
        if array.dtype.kind in 'biu' and (array.size == 0 or (
                int(numpy.max(array)) <= 2 ** 53 and int(numpy.min(array)) >= -2 ** 53)):
            wide = self.builder.add_constant(array.astype(numpy.float64),
                                             self.builder.unique(f'{name}_double'))
            from onnx import helper

            elem = helper.np_dtype_to_tensor_dtype(array.dtype)
            self.builder.nodes.append(helper.make_node(
                'Cast', [wide], [name], name=self.builder.unique('Cast'), to=elem))
            return name
        return self.builder.add_initializer(array, name)

    def ints(self, values: Sequence[int], hint: str | None = None) -> str:
        """Adds a 1-d int64 constant (shapes, axes, pads) and returns its name."""
        return self.const(numpy.asarray(list(values), dtype=numpy.int64), hint=hint)

    def scalar_like(self, value: float, index: int = 0, hint: str | None = None) -> str:
        """Adds a scalar constant with the dtype of input ``index``."""
        return self.const(numpy.asarray(value, dtype=self.input_arrays[index].dtype), hint=hint)
