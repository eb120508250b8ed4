"""Checking an exported test case (``export_testcase``'s layout) with onnxruntime."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence

import numpy


def _load_tensor(path: pathlib.Path) -> tuple[str, numpy.ndarray]:
    import onnx
    from onnx import numpy_helper

    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return tensor.name, numpy_helper.to_array(tensor)


def _by_name(tensors: list[tuple[str, numpy.ndarray]], names: Sequence[str]
             ) -> dict[str, numpy.ndarray]:
    """Keys saved tensors by graph value name: a tensor's own name where it is one
    of ``names``, else the next unclaimed name in order."""
    unclaimed = list(names)
    for saved, _ in tensors:
        if saved in unclaimed:
            unclaimed.remove(saved)
    keyed = {}
    for saved, array in tensors:
        if saved in names and saved not in keyed:
            keyed[saved] = array
        elif unclaimed:
            keyed[unclaimed.pop(0)] = array
    return keyed


def _sorted_pbs(folder: pathlib.Path, kind: str) -> list[pathlib.Path]:
    return sorted(folder.glob(f'{kind}_*.pb'), key=lambda p: int(p.stem.split('_')[1]))


def check_model_expect(test_path: str | os.PathLike[str],
                       input_names: Sequence[str] | None = None,
                       rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Runs ``test_path/model.onnx`` on the inputs of each ``test_data_set_N`` and
    checks its saved outputs.

    A saved tensor feeds (or is compared with) the graph value of its own
    name; tensors with other names take the remaining graph inputs (outputs)
    in order.

    Args:
        test_path: A folder written by :func:`catena_onnx.export_testcase`.
        input_names: The graph inputs the model must have (in any order);
            None skips that check.
        rtol: Relative tolerance.
        atol: Absolute tolerance.

    Raises:
        AssertionError: When an output differs beyond tolerance, or the
            graph's inputs are not ``input_names``.
        ValueError: When a data set holds more inputs than the graph takes.
    """
    import onnx

    from catena_onnx.verification import run_onnxruntime

    folder = pathlib.Path(test_path)
    model = onnx.load(str(folder / 'model.onnx'))
    initializers = {item.name for item in model.graph.initializer}
    graph_inputs = [item.name for item in model.graph.input if item.name not in initializers]
    graph_outputs = [item.name for item in model.graph.output]
    if input_names is not None:
        assert sorted(input_names) == sorted(graph_inputs), (
            f'the graph inputs of {folder} are {sorted(graph_inputs)}, expected '
            f'{sorted(input_names)}')
    data_sets = sorted(path for path in folder.glob('test_data_set_*') if path.is_dir())
    for data in data_sets:
        inputs = [_load_tensor(path) for path in _sorted_pbs(data, 'input')]
        outputs = [_load_tensor(path) for path in _sorted_pbs(data, 'output')]
        if len(inputs) > len(graph_inputs):
            raise ValueError(f'{data} holds {len(inputs)} inputs but the graph takes '
                             f'{len(graph_inputs)}: {graph_inputs}')
        feeds = _by_name(inputs, graph_inputs)
        actual = run_onnxruntime(folder / 'model.onnx', feeds)
        for name, expected in _by_name(outputs, graph_outputs).items():
            numpy.testing.assert_allclose(actual[name], expected, rtol=rtol, atol=atol,
                                          err_msg=f'output {name!r} of {data}')
