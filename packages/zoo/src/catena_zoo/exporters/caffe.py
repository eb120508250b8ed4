"""Export of a catena model as a Caffe network (``chainer.exporters.caffe``).

:func:`export` runs the model once in test mode, reads the computational
graph back from its outputs, and writes Caffe's two files under Chainer's
names: ``chainer_model.prototxt`` (the network, text format) and
``chainer_model.caffemodel`` (the network with its weights, binary). Layers
are named as Chainer 7 names them, ``'<function label>-<rank>-<count>'``
(``'LinearFunction-0-1'``), and the single input blob is ``'data'``, so
scripts that read Chainer's exports (``CaffeFunction(...)(inputs={'data':
x}, outputs=['LinearFunction-2-1'])``) keep working.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from google.protobuf import text_format

from catena import _atomic, backend, variable
from catena_zoo.caffe import _schema
from catena_zoo.exporters import _caffe_layers, _graph

#: The file names Chainer's exporter writes (and so this one).
PROTOTXT_NAME = 'chainer_model.prototxt'
CAFFEMODEL_NAME = 'chainer_model.caffemodel'

__all__ = ['CAFFEMODEL_NAME', 'PROTOTXT_NAME', 'UnsupportedFunctionError', 'export']


class UnsupportedFunctionError(ValueError):
    """The model's graph holds function nodes that Caffe cannot express.

    Attributes:
        problems: One line per offending node: its class, label, layer name,
            input shapes and the reason.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        lines = '\n'.join(f'  - {problem}' for problem in self.problems)
        supported = ', '.join(_caffe_layers.supported_names())
        super().__init__(
            f'cannot export the model to Caffe: {len(self.problems)} function node(s) have no '
            f'Caffe equivalent:\n{lines}\nThe Caffe exporter converts {supported}. '
            'Nothing was written.')


def export(model: Any, args: Any, directory: str | os.PathLike[str] | None = None,
           export_params: bool = True, graph_name: str = 'Graph') -> None:
    """(Experimental) Exports a model's computational graph in Caffe's format.

    The model is called once on ``args`` with ``catena.config.train`` set to
    False; the function nodes between the arguments and the outputs become
    Caffe layers, and the parameters (and other fixed arrays, such as batch
    normalization's running statistics) they read become the layers' blobs,
    as float32. The arguments become ``Input`` layers: ``'data'`` for a
    single argument, ``'data_0'``, ``'data_1'``, ... for several.

    Supported function nodes: LinearFunction (InnerProduct),
    Convolution2DFunction (Convolution), Deconvolution2DFunction
    (Deconvolution), MaxPooling2D / MaxPoolingND and AveragePooling2D /
    AveragePoolingND on 2-D inputs (Pooling), LocalResponseNormalization
    (LRN), FixedBatchNormalization (BatchNorm + Scale), ReLU, LeakyReLU
    (ReLU with ``negative_slope``), Concat, Softmax, Sigmoid, Reshape, and
    the addition of two variables of one shape, ``_ + _`` (Eltwise SUM).

    Pooling follows Caffe's arithmetic: the output size rounds up (CEIL).
    When only rounding down gives the node's output size (``cover_all=False``
    where it matters, and average pooling) the layer says
    ``round_mode: FLOOR``, a field BVLC Caffe added after its 1.0 release
    (older builds reject such a prototxt). Average pooling also needs
    Caffe's divisor (the window clipped to the padded input) to equal the
    node's.

    Everything is checked before anything is written: if a node is not
    supported, or its configuration has no Caffe equivalent (a convolution
    with ``cover_all=True`` that changes the output size, a broadcasting
    addition, ...), :class:`UnsupportedFunctionError` lists every such
    node and no file is created. Both files are written to temporary files
    first and then renamed into place.

    .. admonition:: Example

       >>> export(model, x, 'out', graph_name='mlp')  # doctest: +SKIP
       >>> func = CaffeFunction('out/chainer_model.caffemodel')  # doctest: +SKIP
       >>> y, = func(inputs={'data': x}, outputs=['LinearFunction-2-1'])  # doctest: +SKIP

    Args:
        model: The model: a callable (usually a :class:`~catena.Chain`)
            that takes the arguments and returns a Variable or a tuple/list
            of Variables.
        args: The model's argument: an array or a Variable, or a tuple/list
            of them (one per argument).
        directory: The folder to write into; created if missing. None writes
            into the current directory.
        export_params: Also write ``chainer_model.caffemodel`` with the
            weights. If False, only the prototxt is written.
        graph_name: The ``name`` of the network.

    Raises:
        TypeError: If ``args``, ``directory`` or ``graph_name`` has the
            wrong type, ``model`` is not callable, or the model does not
            return Variables.
        UnsupportedFunctionError: If some function node has no Caffe
            equivalent.
        ValueError: If an output of the model is not computed from ``args``
            (a parameter or a constant).
        NotADirectoryError: If ``directory`` names an existing file.
    """
    arrays = _as_arrays(args)
    if not callable(model):
        raise TypeError(f'model must be callable (a Chain or a function); got '
                        f'{type(model).__name__}')
    if not isinstance(graph_name, str):
        raise TypeError(f'graph_name must be a str; got {type(graph_name).__name__}')
    folder = _as_folder(directory)

    trace = _graph.trace(model, arrays)
    layers = _function_layers(trace)
    # The prototxt holds the Input layers and the layers without their blobs;
    # the caffemodel the layers with their blobs, marked as TEST-phase layers
    # (as Chainer writes them).
    definition = _schema.NetParameter(name=graph_name)
    for name, shape in trace.inputs:
        layer = definition.layer.add(name=name, type='Input', top=[name])
        layer.input_param.shape.add().dim.extend(shape)
    definition.layer.extend(layers)
    for layer in definition.layer:
        del layer.blobs[:]
    files = {PROTOTXT_NAME: text_format.MessageToString(definition).encode('utf-8')}
    if export_params:
        weights = _schema.NetParameter(name=graph_name)
        weights.layer.extend(layers)
        for layer in weights.layer:
            layer.phase = layer.TEST
        files[CAFFEMODEL_NAME] = weights.SerializeToString()
    _write_all(folder, files)


def _as_arrays(args: Any) -> list[Any]:
    """Returns the argument arrays of ``args`` (an array, a Variable, or a tuple/list)."""
    items = list(args) if isinstance(args, (tuple, list)) else [args]
    if isinstance(args, (tuple, list)) and not items:
        raise TypeError('args must hold at least one array or Variable; got an empty '
                        f'{type(args).__name__}')
    arrays = []
    array_types = backend.get_array_types()
    for index, item in enumerate(items):
        where = f'args[{index}]' if isinstance(args, (tuple, list)) else 'args'
        if isinstance(item, variable.Variable):
            if item.array is None:
                raise ValueError(f'{where} is a Variable without an array')
            arrays.append(item.array)
        elif isinstance(item, array_types):
            arrays.append(item)
        else:
            raise TypeError(f'{where} must be an array or a Variable (args may also be a '
                            f'tuple or list of them); got {type(item).__module__}.'
                            f'{type(item).__qualname__}')
    return arrays


def _as_folder(directory: Any) -> str:
    if directory is None:
        return os.getcwd()
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f'directory must be a str, a path-like object or None; got '
                        f'{type(directory).__name__}')
    folder = os.fspath(directory)
    if not isinstance(folder, str):
        raise TypeError(f'directory must name a folder as text; got {folder!r}')
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise NotADirectoryError(f'directory {folder!r} exists and is not a folder')
    return folder


def _function_layers(trace: _graph.Trace) -> list[Any]:
    layers: list[Any] = []
    problems = []
    for call in trace.calls:
        converter = _caffe_layers.CONVERTERS.get(type(call.node))
        try:
            if converter is None:
                raise _caffe_layers.Inexpressible('Caffe has no layer for it')
            layers.extend(converter(_caffe_layers.Layering(call)))
        except _caffe_layers.Inexpressible as reason:
            problems.append(_describe(call, str(reason)))
    if problems:
        raise UnsupportedFunctionError(problems)
    return layers


def _describe(call: _graph.Call, reason: str) -> str:
    inputs = ', '.join(f'{tuple(x.shape)} {x.dtype}' if hasattr(x, 'shape') else repr(x)
                       for x in call.in_data)
    return (f'{type(call.node).__name__} (label {call.node.label!r}, layer {call.name!r}, '
            f'inputs {inputs}): {reason}')


def _write_all(folder: str, files: dict[str, bytes]) -> None:
    """Writes every file to a temporary beside it, then renames them all into place."""
    os.makedirs(folder, exist_ok=True)
    with contextlib.ExitStack() as stack:
        for name, data in files.items():
            temporary = stack.enter_context(_atomic.atomic_path(os.path.join(folder, name)))
            with open(temporary, 'wb') as f:
                f.write(data)
