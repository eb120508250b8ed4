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


def check_model_expect(test_path: str | os.PathLike[str],
                       input_names: Sequence[str] | None = None,
                       rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Runs ``test_path/model.onnx`` on its saved inputs and checks the saved outputs.

    Args:
        test_path: A folder written by :func:`catena_onnx.export_testcase`.
        input_names: The graph inputs the saved ``input_N.pb`` files feed, in
            order (default: the names stored in the files).
        rtol: Relative tolerance.
        atol: Absolute tolerance.

    Raises:
        AssertionError: When an output differs beyond tolerance.
    """
    from catena_onnx.verification import run_onnxruntime

    folder = pathlib.Path(test_path)
    data = folder / 'test_data_set_0'
    inputs = [_load_tensor(path) for path in sorted(data.glob('input_*.pb'),
                                                     key=lambda p: int(p.stem.split('_')[1]))]
    outputs = [_load_tensor(path) for path in sorted(data.glob('output_*.pb'),
                                                      key=lambda p: int(p.stem.split('_')[1]))]
    names = list(input_names) if input_names is not None else [name for name, _ in inputs]
    if len(names) != len(inputs):
        raise ValueError(f'input_names has {len(names)} names but {data} holds '
                         f'{len(inputs)} inputs')
    feeds = {name: array for name, (_, array) in zip(names, inputs)}
    actual = run_onnxruntime(folder / 'model.onnx', feeds)
    for name, expected in outputs:
        numpy.testing.assert_allclose(actual[name], expected, rtol=rtol, atol=atol,
                                      err_msg=f'output {name!r} of {folder}')
