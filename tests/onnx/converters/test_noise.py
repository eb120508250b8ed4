"""Converters of catena.functions.noise against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.functions.noise.dropout import Dropout
from catena.functions.noise.simplified_dropconnect import SimplifiedDropconnect

pytest.importorskip('onnxruntime')
from catena_onnx import export  # noqa: E402
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402

MODULE = 'catena_onnx.converters.noise'
rng = np.random.default_rng(0)
F16: dict[str, Any] = {'rtol': 1e-2, 'atol': 1e-2}


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(-2, 2, shape).astype(dtype)


def _training_dropout(ratio: float) -> Any:
    def model(x: Any) -> Any:
        with catena.using_config('train', True):
            return F.dropout(x, ratio)
    return model


def _dropconnect(**kwargs: Any) -> Any:
    return lambda x, W, b=None: F.simplified_dropconnect(x, W, b, train=False, **kwargs)


_LINK = L.SimplifiedDropconnect(6, 3)


def _dropconnect_link(x: Any) -> Any:
    return _LINK(x, train=False)


CASES = [
    # A ratio of 0 drops nothing, so the random mask is all ones in both runtimes.
    ConverterCase('dropout_training', _training_dropout(0.0), [_x(3, 4)], (Dropout,)),
    ConverterCase('dropout_float64', _training_dropout(0.0), [_x(2, 3, 4, dtype=np.float64)],
                  (Dropout,)),
    ConverterCase('dropout_float16', _training_dropout(0.0), [_x(5, dtype=np.float16)],
                  (Dropout,), **F16),
    ConverterCase('dropconnect', _dropconnect(), [_x(2, 6), _x(3, 6), _x(3)],
                  (SimplifiedDropconnect,)),
    # Gemm needs its bias input before opset 11
    ConverterCase('dropconnect_no_bias', _dropconnect(), [_x(2, 6), _x(3, 6)],
                  (SimplifiedDropconnect,), opsets=(10, 11)),
    ConverterCase('dropconnect_flattens', _dropconnect(), [_x(2, 3, 2, 2), _x(4, 12), _x(4)],
                  (SimplifiedDropconnect,)),
    ConverterCase('dropconnect_ratio_0', lambda x, W: F.simplified_dropconnect(x, W, ratio=0.0),
                  [_x(2, 6), _x(3, 6)], (SimplifiedDropconnect,)),
    ConverterCase('dropconnect_link', _dropconnect_link, [_x(4, 6)], (SimplifiedDropconnect,)),
    ConverterCase('dropconnect_float64', _dropconnect(),
                  [_x(2, 6, dtype=np.float64), _x(3, 6, dtype=np.float64),
                   _x(3, dtype=np.float64)], (SimplifiedDropconnect,)),
    ConverterCase('dropconnect_float16', _dropconnect(),
                  [_x(2, 6, dtype=np.float16), _x(3, 6, dtype=np.float16),
                   _x(3, dtype=np.float16)], (SimplifiedDropconnect,), **F16),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


@pytest.mark.parametrize('opset', [7, 11, 12, None])
def test_training_dropout_draws_a_scaled_mask(opset: int | None) -> None:
    x = rng.uniform(1, 2, (64, 64)).astype(np.float32)
    model = export(lambda v: F.dropout(v, 0.25), [x], train=True, opset_version=opset)
    ops = {node.op_type for node in model.graph.node}
    assert ('RandomUniformLike' in ops) == (opset is not None and opset < 12)
    y, = run_onnxruntime(model, {'Input_0': x}).values()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.75, rtol=1e-6)
    assert 0.15 < 1 - kept.mean() < 0.35


def test_test_mode_dropout_applies_nothing() -> None:
    model = export(F.dropout, [_x(2, 3)])
    assert [node.op_type for node in model.graph.node] == ['Identity']


def test_dropped_weights_are_refused() -> None:
    with pytest.raises(ValueError, match='train=False'):
        export(lambda x, W: F.simplified_dropconnect(x, W, ratio=0.5), [_x(2, 6), _x(3, 6)])


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []
