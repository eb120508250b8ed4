"""The ONNX opset versions catena-onnx writes, and the IR version for each."""

from __future__ import annotations

import functools

import numpy

#: The oldest opset any converter targets.
MINIMUM_OPSET_VERSION = 7


def maximum_opset_version() -> int:
    """Returns the newest opset of the default domain that the installed onnx knows."""
    import onnx

    return int(onnx.defs.onnx_opset_version())


def ir_version_for(opset: int) -> int:
    """Returns the oldest IR version that can carry ``opset`` (runtimes accept it best).

    Never below 4: IR 3 requires every initializer to be a graph input too.
    """
    import onnx

    for _release, ir_version, ai_onnx, *_rest in onnx.helper.VERSION_TABLE:
        if ai_onnx >= opset:
            return max(4, int(ir_version))
    return int(onnx.IR_VERSION)


@functools.cache
def newest_runtime_opset() -> int | None:
    """Returns the newest opset the installed onnxruntime runs, or None without it.

    The answer comes from loading a one-node model per opset, newest first,
    once per process.
    """
    try:
        import onnxruntime
    except ImportError:
        return None
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node('Identity', ['x'], ['y'])], 'probe',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1])])
    for opset in range(maximum_opset_version(), MINIMUM_OPSET_VERSION - 1, -1):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)],
                                  ir_version=ir_version_for(opset))
        try:
            session = onnxruntime.InferenceSession(model.SerializeToString(),
                                                   providers=['CPUExecutionProvider'])
            session.run(None, {'x': numpy.zeros(1, numpy.float32)})
        except Exception:  # noqa: BLE001 - any refusal means this opset is too new
            continue
        return opset
    return None


def default_opset_version() -> int:
    """The opset ``export`` uses when none is given: the newest onnxruntime runs.

    Without onnxruntime it is the newest opset the installed onnx knows.
    """
    runtime = newest_runtime_opset()
    newest = maximum_opset_version()
    return newest if runtime is None else min(runtime, newest)


def resolve_opset(opset_version: int | None) -> int:
    """Checks a requested opset (None means the default) and returns it."""
    if opset_version is None:
        return default_opset_version()
    newest = maximum_opset_version()
    if (not isinstance(opset_version, int) or isinstance(opset_version, bool)
            or not MINIMUM_OPSET_VERSION <= opset_version <= newest):
        raise ValueError(
            f'opset_version must be an int from {MINIMUM_OPSET_VERSION} to {newest} (the '
            f'newest the installed onnx supports), got {opset_version!r}')
    return opset_version
