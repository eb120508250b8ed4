"""Converters of catena.functions.normalization against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
from catena.functions.normalization.batch_normalization import (
    BatchNormalization,
    FixedBatchNormalization,
)
from catena.functions.normalization.batch_renormalization import BatchRenormalizationFunction
from catena.functions.normalization.decorrelated_batch_normalization import (
    FixedDecorrelatedBatchNormalization,
)
from catena.functions.normalization.group_normalization import GroupNormalization
from catena.functions.normalization.l2_normalization import NormalizeL2
from catena.functions.normalization.layer_normalization import LayerNormalization
from catena.functions.normalization.local_response_normalization import (
    LocalResponseNormalization,
)

pytest.importorskip('onnxruntime')
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.normalization'
rng = np.random.default_rng(0)
F16 = dict(rtol=1e-2, atol=1e-2)
# Normalized values are differences divided by a standard deviation: the sums of
# ReduceMean run in another order than NumPy's, so float32 gets a looser atol.
F32 = dict(rtol=1e-5, atol=1e-5)


def _x(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return rng.uniform(-2, 2, shape).astype(dtype)


def _pos(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return rng.uniform(0.5, 2, shape).astype(dtype)


def _bn(**kwargs: Any) -> Any:
    return lambda x, g, b: F.batch_normalization(x, g, b, **kwargs)


def _fixed_bn(**kwargs: Any) -> Any:
    return lambda x, g, b, m, v: F.fixed_batch_normalization(x, g, b, m, v, **kwargs)


def _bn_inputs(x_shape: tuple[int, ...], c_shape: tuple[int, ...], dtype: Any = np.float32,
               fixed: bool = False) -> list[np.ndarray]:
    arrays = [_x(*x_shape, dtype=dtype), _pos(*c_shape, dtype=dtype), _x(*c_shape, dtype=dtype)]
    if fixed:
        arrays += [_x(*c_shape, dtype=dtype), _pos(*c_shape, dtype=dtype)]
    return arrays


def _renorm(update: bool, rmax: float = 1.5, dmax: float = 0.5, dtype: Any = np.float32) -> Any:
    mean, var = _x(4, dtype=dtype) * 0.5, _pos(4, dtype=dtype)

    def model(x: Any, g: Any, b: Any) -> Any:
        return F.batch_renormalization(x, g, b, rmax, dmax, running_mean=mean,
                                       running_var=var, update_statistics=update)
    return model


def _gn(groups: int, eps: float = 1e-5) -> Any:
    return lambda x, g, b: F.group_normalization(x, groups, g, b, eps)


def _ln(x: Any, g: Any, b: Any) -> Any:
    return F.layer_normalization(x, g, b)


def _normalize(**kwargs: Any) -> Any:
    return lambda x: F.normalize(x, **kwargs)


def _lrn(**kwargs: Any) -> Any:
    return lambda x: F.local_response_normalization(x, **kwargs)


def _fixed_dbn(groups: int) -> Any:
    return lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=groups)


def _dbn_inputs(x_shape: tuple[int, ...], groups: int, dtype: Any = np.float32
                ) -> list[np.ndarray]:
    c = x_shape[1] // groups
    return [_x(*x_shape, dtype=dtype), _x(groups, c, dtype=dtype), _x(groups, c, c, dtype=dtype)]


BN, FBN = (BatchNormalization,), (FixedBatchNormalization,)
CASES = [
    ConverterCase('bn_4d', _bn(), _bn_inputs((3, 4, 5, 6), (4,)), BN, **F32),
    ConverterCase('bn_2d', _bn(eps=1e-3), _bn_inputs((5, 3), (3,)), BN, **F32),
    ConverterCase('bn_gamma_2d', _bn(), _bn_inputs((2, 3, 4, 5), (3, 4)), BN, **F32),
    ConverterCase('bn_axis_last', _bn(axis=(0, 1)), _bn_inputs((3, 4, 5), (5,)), BN, **F32),
    ConverterCase('bn_axis_apart', _bn(axis=(0, 2)), _bn_inputs((2, 3, 4, 5), (3, 5)), BN,
                  **F32),
    ConverterCase('bn_running_train', _bn(running_mean=np.zeros(4, np.float32),
                                          running_var=np.ones(4, np.float32)),
                  _bn_inputs((3, 4, 2, 2), (4,)), BN, export_kwargs={'train': True}, **F32),
    ConverterCase('bn_float16', _bn(), _bn_inputs((3, 4, 5), (4,), np.float16), BN, **F16),
    ConverterCase('bn_float64', _bn(), _bn_inputs((3, 4, 5), (4,), np.float64), BN,
                  rtol=1e-10, atol=1e-12),
    ConverterCase('fixed_bn_4d', _fixed_bn(), _bn_inputs((2, 3, 4, 5), (3,), fixed=True), FBN),
    ConverterCase('fixed_bn_2d', _fixed_bn(eps=1e-3), _bn_inputs((4, 3), (3,), fixed=True), FBN),
    ConverterCase('fixed_bn_gamma_2d', _fixed_bn(),
                  _bn_inputs((2, 3, 4, 5), (3, 4), fixed=True), FBN),
    ConverterCase('fixed_bn_axis_last', _fixed_bn(axis=(0, 1)),
                  _bn_inputs((2, 3, 4), (4,), fixed=True), FBN),
    ConverterCase('fixed_bn_float16', _fixed_bn(),
                  _bn_inputs((2, 3, 4), (3,), np.float16, fixed=True), FBN, **F16),
    ConverterCase('fixed_bn_float64', _fixed_bn(),
                  _bn_inputs((2, 3, 4), (3,), np.float64, fixed=True), FBN,
                  rtol=1e-10, atol=1e-12),
    ConverterCase('fixed_bn_float64_axis', _fixed_bn(axis=(0, 2)),
                  _bn_inputs((2, 3, 4), (3,), np.float64, fixed=True), FBN,
                  rtol=1e-10, atol=1e-12),
    ConverterCase('renorm', _renorm(False), _bn_inputs((4, 4, 3), (4,)),
                  (BatchRenormalizationFunction,), **F32),
    ConverterCase('renorm_clipped', _renorm(False, rmax=1.01, dmax=0.01),
                  _bn_inputs((4, 4, 3), (4,)), (BatchRenormalizationFunction,), **F32),
    ConverterCase('renorm_update', _renorm(True), _bn_inputs((4, 4), (4,)),
                  (BatchRenormalizationFunction,), **F32),
    ConverterCase('renorm_float64', _renorm(True, dtype=np.float64),
                  _bn_inputs((4, 4), (4,), np.float64), (BatchRenormalizationFunction,),
                  rtol=1e-10, atol=1e-12),
    ConverterCase('group_norm_4d', _gn(2), _bn_inputs((2, 4, 3, 5), (4,)),
                  (GroupNormalization,), **F32),
    ConverterCase('group_norm_2d', _gn(3, eps=1e-2), _bn_inputs((3, 6), (6,)),
                  (GroupNormalization,), **F32),
    ConverterCase('group_norm_3d_one_group', _gn(1), _bn_inputs((2, 3, 7), (3,)),
                  (GroupNormalization,), **F32),
    ConverterCase('group_norm_float16', _gn(2), _bn_inputs((2, 4, 3), (4,), np.float16),
                  (GroupNormalization,), **F16),
    ConverterCase('group_norm_float64', _gn(4), _bn_inputs((2, 4, 3), (4,), np.float64),
                  (GroupNormalization,), rtol=1e-10, atol=1e-12),
    ConverterCase('layer_norm', _ln, _bn_inputs((3, 7), (7,)), (LayerNormalization,),
                  opsets=(7, 16, 17), **F32),
    ConverterCase('layer_norm_float16', _ln, _bn_inputs((3, 7), (7,), np.float16),
                  (LayerNormalization,), opsets=(16, 17), **F16),
    ConverterCase('layer_norm_float64', _ln, _bn_inputs((3, 7), (7,), np.float64),
                  (LayerNormalization,), opsets=(16, 17), rtol=1e-10, atol=1e-12),
    ConverterCase('normalize', _normalize(), [_x(3, 4)], (NormalizeL2,)),
    ConverterCase('normalize_axes', _normalize(axis=(1, 2), eps=0.5), [_x(2, 3, 4)],
                  (NormalizeL2,)),
    ConverterCase('normalize_negative_axis', _normalize(axis=-1), [_x(2, 3, 4)],
                  (NormalizeL2,)),
    ConverterCase('normalize_zeros', _normalize(), [np.zeros((2, 3), np.float32)],
                  (NormalizeL2,)),
    ConverterCase('normalize_float16', _normalize(axis=0), [_x(3, 4, dtype=np.float16)],
                  (NormalizeL2,), **F16),
    ConverterCase('normalize_float64', _normalize(), [_x(3, 4, dtype=np.float64)],
                  (NormalizeL2,), rtol=1e-12, atol=1e-14),
    ConverterCase('lrn_4d', _lrn(), [_x(2, 7, 3, 4)], (LocalResponseNormalization,)),
    ConverterCase('lrn_strong', _lrn(n=3, k=1, alpha=0.5, beta=0.6), [_x(2, 5, 3, 3)],
                  (LocalResponseNormalization,)),
    ConverterCase('lrn_even_n', _lrn(n=4, k=1.5, alpha=0.3), [_x(2, 6, 2, 2)],
                  (LocalResponseNormalization,)),
    ConverterCase('lrn_2d', _lrn(n=3, alpha=0.2), [_x(3, 6)], (LocalResponseNormalization,)),
    ConverterCase('lrn_3d_wide_window', _lrn(n=9, alpha=0.1), [_x(2, 4, 5)],
                  (LocalResponseNormalization,)),
    ConverterCase('lrn_float16', _lrn(alpha=0.1), [_x(2, 5, 3, 3, dtype=np.float16)],
                  (LocalResponseNormalization,), **F16),
    # float64 runs in float32 (onnxruntime has no float64 LRN).
    ConverterCase('lrn_float64', _lrn(alpha=0.1), [_x(2, 5, 3, 3, dtype=np.float64)],
                  (LocalResponseNormalization,), rtol=1e-6, atol=1e-6),
    ConverterCase('fixed_dbn_4d', _fixed_dbn(2), _dbn_inputs((2, 4, 3, 3), 2),
                  (FixedDecorrelatedBatchNormalization,)),
    ConverterCase('fixed_dbn_2d', _fixed_dbn(1), _dbn_inputs((5, 3), 1),
                  (FixedDecorrelatedBatchNormalization,)),
    ConverterCase('fixed_dbn_float16', _fixed_dbn(3), _dbn_inputs((2, 6, 2), 3, np.float16),
                  (FixedDecorrelatedBatchNormalization,), **F16),
    ConverterCase('fixed_dbn_float64', _fixed_dbn(2), _dbn_inputs((2, 4, 3), 2, np.float64),
                  (FixedDecorrelatedBatchNormalization,), rtol=1e-12, atol=1e-12),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


@pytest.mark.parametrize('opset', [9, None])
def test_dynamic_batch(opset: int | None) -> None:
    """The reshapes of the composites keep the batch size symbolic."""
    from catena_onnx.export import export
    from catena_onnx.verification import run_onnxruntime

    c = 4
    gamma, beta, mean, var = _pos(c), _x(c), _x(c), _pos(c)
    gamma2, beta2 = _pos(c, 3), _x(c, 3)
    dbn_mean, projection = _x(2, 2), _x(2, 2, 2)

    def model(x: Any) -> Any:
        h = F.group_normalization(x, 2, gamma, beta)
        h = F.batch_normalization(h, gamma2, beta2)
        h = F.fixed_batch_normalization(h, gamma, beta, mean, var, axis=(0, 2))
        h = F.fixed_decorrelated_batch_normalization(h, dbn_mean, projection, groups=2)
        return F.local_response_normalization(h, n=3)

    onnx_model = export(model, [_x(2, c, 3)], input_names=['x'], opset_version=opset,
                        dynamic_axes={'x': [0]})
    x = _x(5, c, 3)
    got, = run_onnxruntime(onnx_model, {'x': x}).values()
    with catena.using_config('train', False):
        np.testing.assert_allclose(got, model(x).array, rtol=1e-5, atol=1e-5)


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []
