"""Writing one export test case per opset, in onnx-chainer's folder layout."""

from __future__ import annotations

import os
from typing import Any

#: The folder :func:`gen_test_data_set` writes under (relative to the working directory).
TEST_OUT_DIR = 'out'


def gen_test_data_set(model: Any, args: Any, name: str, opset_version: int,
                      out_dir: str | os.PathLike[str] | None = None, **kwargs: Any) -> str:
    """Exports ``model`` as a test case in ``<out_dir>/opset<opset_version>/<name>``.

    Args:
        model: The model, as :func:`catena_onnx.export` takes it.
        args: Its inputs.
        name: The test case's folder name.
        opset_version: The opset to write.
        out_dir: The root folder (default :data:`TEST_OUT_DIR`).
        kwargs: Further arguments of :func:`catena_onnx.export_testcase`.

    Returns:
        The test case's folder (``model.onnx`` and ``test_data_set_0``).
    """
    from catena_onnx.export import export_testcase

    root = TEST_OUT_DIR if out_dir is None else out_dir
    test_path = os.path.join(root, f'opset{opset_version}', name)
    export_testcase(model, args, test_path, opset_version=opset_version, **kwargs)
    return test_path
