"""catena-onnx on ResNet-50 (random weights, batch 1, 224x224, float32).

``onnx/resnet50/export/vs-forward``
    catena: ``catena_onnx.export`` (trace, convert, check with onnx.checker,
    serialize); the reference column holds catena's own forward pass with the
    graph recorded, which the trace includes. The issue's target is absolute:
    under 10 s per export on 2 cores (the catena column, in microseconds).
``onnx/resnet50/inference/vs-onnxruntime``
    catena's forward in test mode without the graph against onnxruntime
    (one thread) running the exported model: a reference for users, no
    target.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np


def _model_and_input() -> tuple[Any, np.ndarray]:
    import _resnet50
    import catena

    np.random.seed(0)  # noqa: NPY002 - catena's initializers draw from it
    model = _resnet50.ResNet50()
    for link in model.links():
        if isinstance(link, catena.links.BatchNormalization):
            link.avg_var[...] = 1.0
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    return model, x


def export_factory() -> Callable[[], Any]:
    import catena_onnx

    model, x = _model_and_input()

    def run() -> Any:
        buffer = io.BytesIO()
        catena_onnx.export(model, x, filename=buffer)
        return buffer

    return run


def traced_forward_factory() -> Callable[[], Any]:
    import catena

    model, x = _model_and_input()

    def run() -> Any:
        with catena.using_config('train', False):
            return model(catena.Variable(x))

    return run


def catena_inference_factory() -> Callable[[], Any]:
    import catena

    model, x = _model_and_input()

    def run() -> Any:
        with catena.using_config('train', False), catena.no_backprop_mode():
            return model(x)

    return run


def _session() -> tuple[Any, np.ndarray]:
    import onnxruntime

    import catena_onnx

    model, x = _model_and_input()
    proto = catena_onnx.export(model, x)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(proto.SerializeToString(), options,
                                           providers=['CPUExecutionProvider'])
    return session, x


def onnxruntime_factory() -> Callable[[], Any]:
    session, x = _session()

    def run() -> Any:
        return session.run(None, {'Input_0': x})

    return run


def check() -> str:
    import catena

    model, x = _model_and_input()
    session, _ = _session()
    (got,) = session.run(None, {'Input_0': x})
    with catena.using_config('train', False), catena.no_backprop_mode():
        expected = model(x).array
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
    return f'max abs diff {float(np.abs(got - expected).max()):.2g}'


def cases() -> list[dict[str, Any]]:
    return [
        {
            "name": "onnx/resnet50/export/vs-forward",
            "ops": 1,
            "target": None,
            "catena": export_factory,
            "torch": traced_forward_factory,
        },
        {
            "name": "onnx/resnet50/inference/vs-onnxruntime",
            "ops": 1,
            "target": None,
            "catena": catena_inference_factory,
            "torch": onnxruntime_factory,
            "check": check,
        },
    ]
