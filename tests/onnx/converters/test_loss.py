"""Converters of catena.functions.loss against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import catena.functions as F
from catena.functions.loss.absolute_error import AbsoluteError
from catena.functions.loss.hinge import Hinge
from catena.functions.loss.huber_loss import HuberLoss
from catena.functions.loss.mean_absolute_error import MeanAbsoluteError
from catena.functions.loss.mean_squared_error import MeanSquaredError
from catena.functions.loss.sigmoid_cross_entropy import SigmoidCrossEntropy
from catena.functions.loss.softmax_cross_entropy import SoftmaxCrossEntropy
from catena.functions.loss.squared_difference import SquaredDifference
from catena.functions.loss.squared_error import SquaredError

pytest.importorskip('onnxruntime')
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.loss'
rng = np.random.default_rng(0)
F16: dict[str, Any] = {'rtol': 1e-2, 'atol': 1e-2}
SCE = SoftmaxCrossEntropy
SIGMOID_CE = SigmoidCrossEntropy
# The batch (axis 0 of both inputs) is symbolic.
DYNAMIC: dict[str, Any] = {'export_kwargs': {'dynamic_axes': {'Input_0': [0], 'Input_1': [0]}}}


def _x(*shape: int, dtype: type = np.float32, scale: float = 2.0) -> np.ndarray:
    return rng.uniform(-scale, scale, shape).astype(dtype)


def _t(*shape: int, low: int = 0, high: int, dtype: type = np.int32) -> np.ndarray:
    return rng.integers(low, high, shape).astype(dtype)


def _soft(*shape: int, dtype: type = np.float32, zeros: bool = False) -> np.ndarray:
    p = rng.uniform(0, 1, shape)
    if zeros:
        p[p < 0.3] = 0
    return (p / p.sum(axis=1, keepdims=True)).astype(dtype)


def _sce(**kwargs: Any) -> Any:
    return lambda x, t: F.softmax_cross_entropy(x, t, **kwargs)


def _sigmoid_ce(**kwargs: Any) -> Any:
    return lambda x, t: F.sigmoid_cross_entropy(x, t, **kwargs)


def _with_ignored(t: np.ndarray, label: int = -1) -> np.ndarray:
    t = t.copy()
    t.flat[::3] = label
    return t


_WEIGHT = rng.uniform(0.5, 2.0, 4).astype(np.float32)

CASES = [
    ConverterCase('sce', _sce(), [_x(5, 4), _t(5, high=4)], (SCE,)),
    ConverterCase('sce_ignore_label', _sce(), [_x(6, 4), _with_ignored(_t(6, high=4))], (SCE,)),
    ConverterCase('sce_not_normalized', _sce(normalize=False),
                  [_x(6, 4), _with_ignored(_t(6, high=4))], (SCE,)),
    ConverterCase('sce_all_ignored', _sce(), [_x(3, 4), np.full(3, -1, np.int32)], (SCE,)),
    ConverterCase('sce_reduce_no', _sce(reduce='no'), [_x(6, 4), _with_ignored(_t(6, high=4))],
                  (SCE,)),
    ConverterCase('sce_class_weight', _sce(class_weight=_WEIGHT),
                  [_x(6, 4), _with_ignored(_t(6, high=4))], (SCE,)),
    ConverterCase('sce_class_weight_no', _sce(class_weight=_WEIGHT, reduce='no'),
                  [_x(6, 4), _t(6, high=4)], (SCE,)),
    ConverterCase('sce_other_ignore_label', _sce(ignore_label=2),
                  [_x(6, 4), _t(6, high=4)], (SCE,)),
    # classes along axis 1 of 3-d scores: before opset 13 LogSoftmax is transposed
    ConverterCase('sce_3d', _sce(), [_x(2, 4, 3), _with_ignored(_t(2, 3, high=4))], (SCE,)),
    ConverterCase('sce_last_axis', _sce(axis=-1, reduce='no'), [_x(2, 3, 5), _t(2, 3, high=5)],
                  (SCE,)),
    ConverterCase('sce_int64_labels', _sce(), [_x(5, 4), _t(5, high=4, dtype=np.int64)], (SCE,)),
    ConverterCase('sce_int8_labels', _sce(), [_x(5, 4), _t(5, high=4, dtype=np.int8)], (SCE,)),
    ConverterCase('sce_dynamic_batch', _sce(normalize=False), [_x(5, 4), _t(5, high=4)], (SCE,),
                  **DYNAMIC),
    ConverterCase('sce_soft', _sce(), [_x(5, 4), _soft(5, 4)], (SCE,)),
    ConverterCase('sce_soft_3d_no', _sce(reduce='no'), [_x(2, 4, 3), _soft(2, 4, 3)], (SCE,)),
    ConverterCase('sce_soft_kl', _sce(soft_target_loss='kl-divergence'),
                  [_x(6, 4), _soft(6, 4, zeros=True)], (SCE,)),
    ConverterCase('sce_soft_kl_weighted', _sce(soft_target_loss='kl-divergence', reduce='no',
                                               class_weight=_WEIGHT),
                  [_x(6, 4), _soft(6, 4, zeros=True)], (SCE,)),
    ConverterCase('sce_float64', _sce(class_weight=_WEIGHT.astype(np.float64)),
                  [_x(5, 4, dtype=np.float64), _with_ignored(_t(5, high=4))], (SCE,)),
    ConverterCase('sce_soft_float64', _sce(soft_target_loss='kl-divergence'),
                  [_x(5, 4, dtype=np.float64), _soft(5, 4, zeros=True, dtype=np.float64)],
                  (SCE,)),
    ConverterCase('sce_float16', _sce(), [_x(5, 4, dtype=np.float16), _t(5, high=4)], (SCE,),
                  **F16),
    ConverterCase('sce_soft_float16', _sce(soft_target_loss='kl-divergence'),
                  [_x(5, 4, dtype=np.float16), _soft(5, 4, zeros=True, dtype=np.float16)],
                  (SCE,), **F16),
    ConverterCase('sce_soft_mixed_dtypes', _sce(reduce='no'),
                  [_x(5, 4), _soft(5, 4, dtype=np.float64)], (SCE,)),
    ConverterCase('sigmoid_ce', _sigmoid_ce(), [_x(4, 3), _t(4, 3, high=2)], (SIGMOID_CE,)),
    ConverterCase('sigmoid_ce_ignore', _sigmoid_ce(), [_x(4, 3, scale=30.0),
                                                       _t(4, 3, low=-1, high=2)], (SIGMOID_CE,)),
    ConverterCase('sigmoid_ce_not_normalized', _sigmoid_ce(normalize=False),
                  [_x(4, 3), _t(4, 3, low=-1, high=2)], (SIGMOID_CE,)),
    ConverterCase('sigmoid_ce_dynamic_batch', _sigmoid_ce(normalize=False),
                  [_x(4, 3), _t(4, 3, low=-1, high=2)], (SIGMOID_CE,), **DYNAMIC),
    ConverterCase('sigmoid_ce_reduce_no', _sigmoid_ce(reduce='no'),
                  [_x(4, 3), _t(4, 3, low=-1, high=2, dtype=np.int64)], (SIGMOID_CE,)),
    ConverterCase('sigmoid_ce_float64', _sigmoid_ce(),
                  [_x(4, 3, scale=40.0, dtype=np.float64), _t(4, 3, low=-1, high=2)],
                  (SIGMOID_CE,)),
    ConverterCase('sigmoid_ce_float16', _sigmoid_ce(reduce='no'),
                  [_x(4, 3, dtype=np.float16), _t(4, 3, low=-1, high=2)], (SIGMOID_CE,), **F16),
    ConverterCase('hinge', F.hinge, [_x(5, 4), _t(5, high=4)], (Hinge,)),
    ConverterCase('hinge_l2_no', lambda x, t: F.hinge(x, t, norm='L2', reduce='no'),
                  [_x(5, 4), _t(5, high=4, dtype=np.int64)], (Hinge,)),
    ConverterCase('hinge_l2_mean', lambda x, t: F.hinge(x, t, norm='L2'),
                  [_x(5, 4), _t(5, high=4)], (Hinge,)),
    ConverterCase('hinge_dynamic_batch', F.hinge, [_x(5, 4), _t(5, high=4)], (Hinge,),
                  **DYNAMIC),
    ConverterCase('hinge_float64', F.hinge, [_x(5, 4, dtype=np.float64), _t(5, high=4)],
                  (Hinge,)),
    ConverterCase('huber', lambda x, t: F.huber_loss(x, t, delta=1.0), [_x(4, 5), _x(4, 5)],
                  (HuberLoss,)),
    ConverterCase('huber_3d', lambda x, t: F.huber_loss(x, t, delta=0.5),
                  [_x(2, 3, 4), _x(2, 3, 4)], (HuberLoss,)),
    ConverterCase('huber_no', lambda x, t: F.huber_loss(x, t, delta=1.5, reduce='no'),
                  [_x(4, 5), _x(4, 5)], (HuberLoss,)),
    # no float64 Clip in onnxruntime before opset 12: opset 11 takes the other branch
    ConverterCase('huber_float64', lambda x, t: F.huber_loss(x, t, delta=1.0),
                  [_x(4, 5, dtype=np.float64), _x(4, 5, dtype=np.float64)], (HuberLoss,),
                  opsets=(11, 12)),
    ConverterCase('huber_float16', lambda x, t: F.huber_loss(x, t, delta=1.0, reduce='no'),
                  [_x(4, 5, dtype=np.float16), _x(4, 5, dtype=np.float16)], (HuberLoss,),
                  **F16),
    ConverterCase('mean_squared_error', F.mean_squared_error, [_x(3, 4), _x(3, 4)],
                  (MeanSquaredError,)),
    ConverterCase('mean_squared_error_float64', F.mean_squared_error,
                  [_x(3, 4, 2, dtype=np.float64), _x(3, 4, 2, dtype=np.float64)],
                  (MeanSquaredError,)),
    ConverterCase('mean_squared_error_float16', F.mean_squared_error,
                  [_x(3, 4, dtype=np.float16), _x(3, 4, dtype=np.float16)],
                  (MeanSquaredError,), **F16),
    ConverterCase('mean_absolute_error', F.mean_absolute_error, [_x(3, 4), _x(3, 4)],
                  (MeanAbsoluteError,)),
    ConverterCase('mean_absolute_error_float64', F.mean_absolute_error,
                  [_x(5, dtype=np.float64), _x(5, dtype=np.float64)], (MeanAbsoluteError,)),
    ConverterCase('squared_error', F.squared_error, [_x(3, 4), _x(3, 4)], (SquaredError,)),
    ConverterCase('squared_error_float64', F.squared_error,
                  [_x(3, 4, dtype=np.float64), _x(3, 4, dtype=np.float64)], (SquaredError,)),
    ConverterCase('squared_difference', F.squared_difference, [_x(2, 3, 2), _x(2, 3, 2)],
                  (SquaredDifference,)),
    ConverterCase('absolute_error', F.absolute_error, [_x(3, 4), _x(3, 4)], (AbsoluteError,)),
    ConverterCase('absolute_error_float16', F.absolute_error,
                  [_x(3, 4, dtype=np.float16), _x(3, 4, dtype=np.float16)], (AbsoluteError,),
                  **F16),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []
