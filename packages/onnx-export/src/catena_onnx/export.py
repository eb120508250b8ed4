"""``export`` and ``export_testcase``: a catena model to an ONNX file."""

from __future__ import annotations

import os
import pathlib
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy

import catena
from catena import _atomic
from catena_onnx import _trace, onnx_helper
from catena_onnx._opsets import ir_version_for, resolve_opset
from catena_onnx.context import ConversionContext, GraphBuilder
from catena_onnx.errors import UnsupportedFunctionError, VerificationError
from catena_onnx.registry import ConverterTable, default_table, function_name
from catena_onnx.retain_input_hook import RetainInputHook
from catena_onnx.verification import verify as verify_model

Shape = Sequence[int | str | None]

__all__ = ['RetainInputHook', 'export', 'export_testcase', 'parameter_name']


def _names_for(keys: list[Any], given: Any, prefix: str, what: str) -> list[str]:
    """The ONNX names of the graph inputs or outputs (``keys`` are their positions/keys)."""
    if given is None:
        return [key if isinstance(key, str) else f'{prefix}_{i}' for i, key in enumerate(keys)]
    if isinstance(given, str):
        given = [given]
    if isinstance(given, Mapping):
        missing = [key for key in keys if key not in given]
        if missing or len(given) != len(keys):
            raise ValueError(f'{what} must name each of {keys!r}; got keys {list(given)!r}')
        names = [given[key] for key in keys]
    else:
        names = list(given)
        if len(names) != len(keys):
            raise ValueError(f'{what} must hold {len(keys)} name(s), one per '
                             f'{prefix.lower()}; got {len(names)}: {names!r}')
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f'{what} must be non-empty strings; got {name!r}')
    if len(set(names)) != len(names):
        raise ValueError(f'{what} must be distinct; got {names!r}')
    return names


def _input_shapes(keys: list[Any], arrays: list[Any], given: Any) -> list[Shape]:
    if given is None:
        return [tuple(array.shape) for array in arrays]
    if isinstance(given, Mapping):
        if set(given) != set(keys):
            raise ValueError(f'input_shapes must give a shape for each of {keys!r}; '
                             f'got keys {list(given)!r}')
        shapes = [given[key] for key in keys]
    elif isinstance(given, tuple) and len(keys) == 1:
        shapes = [given]
    else:
        shapes = list(given)
    if len(shapes) != len(arrays):
        raise ValueError(f'input_shapes must hold {len(arrays)} shape(s), got {len(shapes)}')
    for key, shape, array in zip(keys, shapes, arrays):
        if len(shape) != array.ndim:
            raise ValueError(f'input_shapes for input {key!r} has {len(shape)} dimensions but '
                             f'the input has {array.ndim} (shape {array.shape})')
    return [tuple(shape) for shape in shapes]


def _apply_dynamic_axes(names: list[str], shapes: list[Shape],
                        dynamic_axes: Mapping[str, Any] | None) -> list[Shape]:
    result = []
    for name, shape in zip(names, shapes):
        axes = (dynamic_axes or {}).get(name)
        if axes is None:
            result.append(shape)
            continue
        if not isinstance(axes, Mapping):
            axes = {axis: f'{name}_dim{axis}' for axis in axes}
        dims = list(shape)
        for axis, label in axes.items():
            if not -len(dims) <= axis < len(dims):
                raise ValueError(f'dynamic_axes[{name!r}] names axis {axis}, but {name} has '
                                 f'{len(dims)} dimensions')
            dims[axis] = label
        result.append(tuple(dims))
    return result


def parameter_name(path: str) -> str:
    """The ONNX name of a parameter or persistent at ``path`` (``/l1/W`` -> ``param_l1_W``)."""
    return 'param' + path.replace('/', '_')


def _persistent_names(model: Any) -> dict[int, str]:
    names: dict[int, str] = {}
    if not isinstance(model, catena.Link):
        return names
    for path, link in model.namedlinks():
        for attribute in link._persistent:
            value = getattr(link, attribute, None)
            if hasattr(value, 'shape'):
                names[id(value)] = parameter_name(f'{path.rstrip("/")}/{attribute}')
    return names


def _value_info(name: str, dtype: Any, shape: Shape) -> Any:
    from onnx import helper

    elem = helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))
    return helper.make_tensor_value_info(name, elem, list(shape))


class _Exporter:
    """Turns one trace into an ONNX graph."""

    def __init__(self, trace: _trace.Trace, table: ConverterTable, opset: int,
                 input_names: list[str], output_names: list[str] | None, export_params: bool,
                 model: Any, dynamic: bool) -> None:
        self.trace = trace
        self.table = table
        self.opset = opset
        self.builder = GraphBuilder()
        self.export_params = export_params
        self.dynamic = dynamic
        self.names: dict[int, str] = {}
        self.input_arrays: dict[int, tuple[Any, str]] = {}
        self.param_inputs: list[tuple[str, Any]] = []
        self.input_names = input_names
        self.output_names = output_names
        self._persistents = _persistent_names(model)
        self._params: dict[int, str] = {}
        self._label_counts: dict[str, int] = {}
        if isinstance(model, catena.Link):
            for path, param in model.namedparams():
                if param.array is not None:
                    self._params[id(param.node)] = parameter_name(path)
                else:
                    warnings.warn(f'the parameter {path!r} is not initialized (its link was not '
                                  'called), so the exported graph does not hold it',
                                  UserWarning, stacklevel=4)

    def check_converters(self) -> None:
        unsupported = []
        for call in self.trace.calls:
            if self.table.lookup(call.func, self.opset) is None:
                shapes = [tuple(array.shape) for array in call.in_data]
                unsupported.append((type(call.func), call.func.label, shapes))
        if unsupported:
            ranges = {cls: span for cls, _, _ in unsupported
                      if (span := self.table.opset_range(cls)) is not None}
            raise UnsupportedFunctionError(unsupported, self.opset, ranges)

    def _name_of_leaf(self, node: Any, array: Any, hint: str = 'Constant') -> str:
        """Names a node that no traced call created: a parameter or a constant (named
        after ``hint`` unless it is a link's persistent value)."""
        param_name = self._params.get(id(node))
        if param_name is not None:
            name = self.builder.reserve(param_name)
            if self.export_params:
                self.builder.add_initializer(_trace.host_array(array), name)
            else:
                self.param_inputs.append((name, array))
            return name
        name = self.builder.unique(self._persistents.get(id(array), hint))
        self.builder.add_initializer(_trace.host_array(array), name)
        return name

    def build(self) -> tuple[list[Any], list[Any]]:
        builder = self.builder
        input_ids = set()
        for name, (_, variable) in zip(self.input_names, self.trace.inputs):
            self.names[id(variable.node)] = builder.reserve(name)
            self.input_arrays[id(variable.array)] = (variable.array, name)
            input_ids.add(id(variable.node))
        copies: list[tuple[str, Any]] = []  # outputs that need an Identity node
        if self.output_names is not None:
            for name, (_, variable) in zip(self.output_names, self.trace.outputs):
                node_id = id(variable.node)
                if variable.node.creator_node is None or node_id in self.names:
                    copies.append((name, variable))
                else:
                    self.names[node_id] = builder.reserve(name)
        for call in self.trace.calls:
            self._convert(call, input_ids)
        if self.output_names is None:
            self.output_names = self._name_outputs(copies)
        for name, variable in copies:
            source = self.names.get(id(variable.node))
            if source is None:
                source = self.names[id(variable.node)] = self._name_of_leaf(variable.node,
                                                                            variable.array)
            builder.add_node('Identity', [source], [builder.reserve(name)])
        return builder.nodes, builder.initializers

    def _name_outputs(self, copies: list[tuple[str, Any]]) -> list[str]:
        """Default output names, as onnx-chainer's: the name of the value each output is
        (``LinearFunction_1``, ``Split_0_1``); ``Output_<i>`` for an output that is a graph
        input, a constant, or an output already."""
        names: list[str] = []
        for index, (_, variable) in enumerate(self.trace.outputs):
            name = self.names.get(id(variable.node))
            if name is None or variable.node.creator_node is None or name in names:
                name = self.builder.unique(f'Output_{index}')
                copies.append((name, variable))
                self.builder._names.discard(name)  # reserved again for its Identity node
            names.append(name)
        return names

    def _convert(self, call: _trace.TracedCall, input_ids: set[int]) -> None:
        builder = self.builder
        converter = self.table.lookup(call.func, self.opset)
        assert converter is not None  # check_converters ran first
        label = function_name(call.func)
        count = self._label_counts.get(label, 0)
        self._label_counts[label] = count + 1
        func_name = f'{label}_{count}'
        param_names = converter.param_names
        input_names = []
        constant = []
        for index, (node, array) in enumerate(zip(call.input_nodes, call.in_data)):
            name = self.names.get(id(node))
            if name is None:
                param = param_names[index] if index < len(param_names) else None
                hint = f'{func_name}_param_{param}' if param else 'Constant'
                name = self.names[id(node)] = self._name_of_leaf(node, array, hint)
            input_names.append(name)
            constant.append(node.creator_node is None and id(node) not in input_ids
                            and id(node) not in self._params)
        output_names = []
        for index, node in enumerate(call.output_nodes):
            name = self.names.get(id(node)) if node is not None else None
            if name is None:
                name = builder.unique(func_name if len(call.output_nodes) == 1
                                      else f'{func_name}_{index}')
                if node is not None:
                    self.names[id(node)] = name
            output_names.append(name)
        ctx = ConversionContext(
            builder, call.func, self.opset, input_names, output_names, call.in_data,
            [getattr(node, 'shape', None) for node in call.output_nodes],
            [getattr(node, 'dtype', None) for node in call.output_nodes],
            constant, self.dynamic, func_name=func_name, graph_inputs=self.input_arrays)
        with onnx_helper.converting(func_name):
            returned = converter.convert(ctx)
        # onnx-chainer's converters return their NodeProtos instead of appending them.
        for item in returned if isinstance(returned, (list, tuple)) else [returned]:
            if hasattr(item, 'op_type'):
                builder.nodes.append(item)


def export(model: Any, args: Any, filename: str | os.PathLike[str] | Any | None = None,
           export_params: bool = True, graph_name: str = 'Graph', save_text: bool = False,
           opset_version: int | None = None, input_names: Any = None, output_names: Any = None,
           train: bool = False, return_named_inout: bool = False,
           external_converters: Mapping[Any, Any] | None = None,
           external_opset_imports: Mapping[str, int] | None = None,
           input_shapes: Any = None, no_testcase: bool = False, *,
           dynamic_axes: Mapping[str, Any] | None = None, verify: bool = False,
           rtol: float = 1e-4, atol: float = 1e-5) -> Any:
    """Exports a model to ONNX by running it once on ``args``.

    The model is called as ``model(*args)`` (``model(**args)`` for a dict),
    in test mode unless ``train`` is True. Every FunctionNode that leads to
    the outputs is converted by the converter registered for its class.

    Args:
        model: A :class:`catena.Chain` or any callable returning a Variable,
            or a list, tuple or dict of Variables.
        args: An array or Variable, a list or tuple of them, or a dict.
        filename: A path or a writable binary file object; None writes
            nothing. A path is written atomically.
        export_params: Store the parameters as initializers (else they
            become graph inputs).
        graph_name: The graph's name.
        save_text: Also write the model as text to ``filename + '.txt'``.
        opset_version: The opset of the default domain (default: the newest
            the installed onnxruntime runs).
        input_names: A name, a list of names, or a dict keyed like ``args``
            (default ``Input_0``, ``Input_1``, ...; the keys for a dict).
        output_names: Likewise for the outputs (default, as in onnx-chainer: the
            name of the value each output is, ``<FunctionNode class>_<n>``,
            e.g. ``LinearFunction_1``; ``Output_<i>`` for an output that is
            an input or a constant).
        train: Trace with ``catena.config.train`` True.
        return_named_inout: Also return the named inputs and outputs.
        external_converters: Converters for this export, keyed by FunctionNode
            class or by label; they take precedence over the built-ins.
        external_opset_imports: Opset versions of other domains used by
            external converters (domain name to version).
        input_shapes: Shapes to declare for the inputs instead of the traced
            ones; a dimension given as a string is symbolic.
        no_testcase: Accepted for onnx-chainer compatibility; catena-onnx does
            not deprecate exporting without test cases, so it changes nothing.
        dynamic_axes: ``{name: {axis: label}}`` or ``{name: [axes]}`` marking
            dimensions of inputs and outputs as symbolic (e.g. the batch).
        verify: Run the exported model in onnxruntime on ``args``, print the
            maximum absolute and relative difference per output, and raise
            :class:`~catena_onnx.errors.VerificationError` (writing nothing)
            when one is beyond ``atol + rtol * |expected|``.
        rtol: The relative tolerance of ``verify``.
        atol: The absolute tolerance of ``verify``.

    Returns:
        ``onnx.ModelProto``, or ``(model, inputs, outputs)`` with ordered
        dicts of Variables by ONNX name when ``return_named_inout`` is True.
    """
    del no_testcase
    from onnx import helper

    opset = resolve_opset(opset_version)
    table = default_table().with_external(external_converters)

    _, probe_inputs = _trace.wrap_args(args)
    keys = [key for key, _ in probe_inputs]
    in_names = _names_for(keys, input_names, 'Input', 'input_names')
    in_shapes = _input_shapes(keys, [v.array for _, v in probe_inputs], input_shapes)

    trace = _trace.trace(model, args, train)
    given_out_names = None if output_names is None else _names_for(
        [key for key, _ in trace.outputs], output_names, 'Output', 'output_names')
    in_shapes = _apply_dynamic_axes(in_names, in_shapes, dynamic_axes)
    dynamic = any(not isinstance(d, int) for shape in in_shapes for d in shape)

    exporter = _Exporter(trace, table, opset, in_names, given_out_names, export_params, model,
                         dynamic)
    exporter.check_converters()
    nodes, initializers = exporter.build()
    out_names = exporter.output_names
    assert out_names is not None  # build() names the outputs
    unknown = set(dynamic_axes or ()) - set(in_names) - set(out_names)
    if unknown:
        raise ValueError(f'dynamic_axes names {sorted(unknown)}, which are neither inputs '
                         f'{in_names} nor outputs {out_names}')

    graph_inputs = [_value_info(name, variable.dtype, shape)
                    for name, (_, variable), shape in zip(in_names, trace.inputs, in_shapes)]
    graph_inputs += [_value_info(name, array.dtype, array.shape)
                     for name, array in exporter.param_inputs]
    out_shapes: list[Shape] = []
    for name, (_, variable) in zip(out_names, trace.outputs):
        if name in (dynamic_axes or {}):
            out_shapes.append(_apply_dynamic_axes([name], [variable.shape], dynamic_axes)[0])
        else:
            out_shapes.append((None,) * variable.ndim if dynamic else variable.shape)
    graph_outputs = [_value_info(name, variable.dtype, shape)
                     for name, (_, variable), shape in zip(out_names, trace.outputs, out_shapes)]
    graph = helper.make_graph(nodes, graph_name, graph_inputs, graph_outputs, initializers)
    versions = {'': opset, **dict(external_opset_imports or {})}
    for node in nodes:  # custom operators of a domain nobody declared: version 1
        versions.setdefault(node.domain, 1)
    opset_imports = [helper.make_opsetid(domain, version) for domain, version in versions.items()]
    onnx_model = helper.make_model(graph, opset_imports=opset_imports,
                                   ir_version=ir_version_for(opset),
                                   producer_name='catena-onnx')
    from catena_onnx import __version__

    onnx_model.producer_version = __version__
    _check(onnx_model, bool(external_converters), bool(external_opset_imports))

    if verify:
        feeds = {name: _trace.host_array(variable.array)
                 for name, (_, variable) in zip(in_names, trace.inputs)}
        feeds.update({name: _trace.host_array(array) for name, array in exporter.param_inputs})
        expected = {name: _trace.host_array(variable.array)
                    for name, (_, variable) in zip(out_names, trace.outputs)}
        report = verify_model(onnx_model, feeds, expected, rtol=rtol, atol=atol)
        print(report)
        if not report.ok:
            raise VerificationError(report)

    if filename is not None:
        _write(onnx_model, filename, save_text)
    if return_named_inout:
        named_inputs = OrderedDict((name, variable)
                                   for name, (_, variable) in zip(in_names, trace.inputs))
        named_outputs = OrderedDict((name, variable)
                                    for name, (_, variable) in zip(out_names, trace.outputs))
        return onnx_model, named_inputs, named_outputs
    return onnx_model


def _check(onnx_model: Any, external: bool, imports_declared: bool) -> None:
    """Runs ONNX's full model check.

    A model from ``external_converters`` that declare no
    ``external_opset_imports`` may hold operators ONNX does not know (custom
    operators in the default domain): its failed check is a ``UserWarning``,
    as in onnx-chainer. Any other failure raises.
    """
    import onnx

    try:
        onnx.checker.check_model(onnx_model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as error:
        if not external or imports_declared:
            raise
        warnings.warn(
            'the exported model fails ONNX\'s check, which is ignored because it was exported '
            'with external_converters and no external_opset_imports; declare the domains of '
            'custom operators in external_opset_imports to have it checked. The check '
            f'said:\n{error}', UserWarning, stacklevel=3)


def _write(onnx_model: Any, filename: Any, save_text: bool) -> None:
    payload = onnx_model.SerializeToString()
    if hasattr(filename, 'write'):
        filename.write(payload)
        return
    path = pathlib.Path(filename)
    with _atomic.atomic_path(path) as temporary:
        pathlib.Path(temporary).write_bytes(payload)
    if save_text:
        with _atomic.atomic_path(pathlib.Path(f'{path}.txt')) as temporary:
            pathlib.Path(temporary).write_text(str(onnx_model))


def export_testcase(model: Any, args: Any, out_dir: str | os.PathLike[str],
                    output_grad: bool = False, **kwargs: Any) -> Any:
    """Exports ``model`` with one set of inputs and outputs, as ONNX's test cases are laid out.

    Writes ``out_dir/model.onnx`` and ``out_dir/test_data_set_0/input_N.pb``
    and ``output_N.pb`` (TensorProto files); with ``output_grad``, also the
    gradient of each parameter for the sum of the outputs as
    ``gradient_N.pb``.

    Args:
        model: As in :func:`export`.
        args: As in :func:`export`.
        out_dir: The folder (created when missing).
        output_grad: Also write the parameters' gradients.
        kwargs: Further arguments of :func:`export`.

    Returns:
        The ModelProto (as :func:`export` returns it).
    """
    from onnx import numpy_helper

    kwargs.pop('return_named_inout', None)
    out = pathlib.Path(out_dir)
    onnx_model, inputs, outputs = export(model, args, filename=None, return_named_inout=True,
                                         **kwargs)
    data_dir = out / 'test_data_set_0'
    data_dir.mkdir(parents=True, exist_ok=True)
    tensors = [(f'input_{i}.pb', name, variable) for i, (name, variable)
               in enumerate(inputs.items())]
    initializer_names = {item.name for item in onnx_model.graph.initializer}
    extra_inputs = [item.name for item in onnx_model.graph.input if item.name not in inputs
                    and item.name not in initializer_names]
    params = dict(model.namedparams()) if isinstance(model, catena.Link) else {}
    by_onnx_name = {parameter_name(path): param for path, param in params.items()}
    for offset, name in enumerate(extra_inputs):
        tensors.append((f'input_{len(inputs) + offset}.pb', name, by_onnx_name[name]))
    tensors += [(f'output_{i}.pb', name, variable) for i, (name, variable)
                in enumerate(outputs.items())]
    if output_grad:
        if isinstance(model, catena.Link):
            model.cleargrads()
        total = None
        for variable in outputs.values():
            term = catena.functions.sum(variable)
            total = term if total is None else total + term
        assert total is not None
        total.backward()
        for i, (path, param) in enumerate(params.items()):
            if param.grad is not None:
                tensors.append((f'gradient_{i}.pb', parameter_name(path),
                                catena.Variable(param.grad)))
    for filename, name, variable in tensors:
        tensor = numpy_helper.from_array(_trace.host_array(variable.array), name)
        with _atomic.atomic_path(data_dir / filename) as temporary:
            pathlib.Path(temporary).write_bytes(tensor.SerializeToString())
    _write(onnx_model, out / 'model.onnx', save_text=bool(kwargs.get('save_text')))
    return onnx_model
