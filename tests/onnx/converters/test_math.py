"""Converters of catena.functions.math against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

import catena.functions as F
from catena.functions.math.arctanh import Arctanh
from catena.functions.math.average import Mean
from catena.functions.math.basic_math import (
    Absolute,
    Add,
    AddConstant,
    Div,
    DivFromConstant,
    MatMulVarVar,
    Mul,
    MulConstant,
    MultiAdd,
    Neg,
    PowConstVar,
    PowVarConst,
    PowVarVar,
    Sub,
    SubFromConstant,
)
from catena.functions.math.batch_l2_norm_squared import BatchL2NormSquared
from catena.functions.math.clip import Clip
from catena.functions.math.cumsum import Cumsum
from catena.functions.math.einsum import EinSum
from catena.functions.math.erf import Erf
from catena.functions.math.erfc import Erfc
from catena.functions.math.exponential import Exp, Log, Log2, Log10
from catena.functions.math.exponential_m1 import Expm1
from catena.functions.math.fft import FFT
from catena.functions.math.fmod import Fmod
from catena.functions.math.hyperbolic import Cosh, Sinh
from catena.functions.math.identity import Identity
from catena.functions.math.linear_interpolate import LinearInterpolate
from catena.functions.math.logarithm_1p import Log1p
from catena.functions.math.logsumexp import LogSumExp
from catena.functions.math.matmul import MatMul
from catena.functions.math.maximum import Maximum
from catena.functions.math.minimum import Minimum
from catena.functions.math.minmax import ArgMax, ArgMin, Max, Min
from catena.functions.math.ndtr import Ndtr
from catena.functions.math.prod import Prod
from catena.functions.math.sqrt import Sqrt
from catena.functions.math.square import Square
from catena.functions.math.sum import Sum
from catena.functions.math.sum_to import SumTo
from catena.functions.math.tensordot import TensorDot
from catena.functions.math.trigonometric import (
    Arccos,
    Arcsin,
    Arctan,
    Arctan2,
    Cos,
    Sin,
    Tan,
)

pytest.importorskip('onnxruntime')
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.math'
rng = np.random.default_rng(0)
F16 = {'rtol': 1e-2, 'atol': 1e-2}
# Transcendental operators: onnxruntime's float32 kernels differ from NumPy's by a few ulp.
TRANS = {'rtol': 1e-5, 'atol': 1e-5}
# float64 through float32 (onnxruntime lacks the float64 kernel).
VIA32 = {'rtol': 1e-6, 'atol': 1e-6}


def _x(*shape: int, low: float = -2, high: float = 2, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(low, high, shape).astype(dtype)


def _pos(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return _x(*shape, low=0.2, high=3, dtype=dtype)


def _unit(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return _x(*shape, low=-0.9, high=0.9, dtype=dtype)


def _apply(func_class: type, *args: object) -> object:
    """A model applying a fresh ``func_class(*args)`` to its inputs."""
    def model(*xs: object) -> object:
        ys = func_class(*args).apply(xs)
        return ys[0] if len(ys) == 1 else ys
    return model


def _ties() -> np.ndarray:
    return np.array([[1, 3, 3, 0], [2, 2, 1, 2], [0, 0, 0, 0]], dtype=np.float32)


def _arctan2_points() -> list[np.ndarray]:
    values = np.array([-2.0, -0.5, 0.0, 0.5, 2.0], dtype=np.float32)
    return [values[:, None], values[None, :]]


CASES = [
    # element-wise, one input
    ConverterCase('neg', lambda x: -x, [_x(2, 3)], (Neg,)),
    ConverterCase('absolute', F.absolute, [_x(2, 3, 4)], (Absolute,)),
    ConverterCase('absolute_float16', F.absolute, [_x(3, 5, dtype=np.float16)], (Absolute,),
                  **F16),
    ConverterCase('exp', F.exp, [_x(2, 3)], (Exp,), **TRANS),
    ConverterCase('exp_float64', F.exp, [_x(2, 3, dtype=np.float64)], (Exp,), rtol=1e-12),
    ConverterCase('log', F.log, [_pos(2, 3)], (Log,), **TRANS),
    ConverterCase('log2', F.log2, [_pos(2, 3)], (Log2,), **TRANS),
    ConverterCase('log10', F.log10, [_pos(2, 3)], (Log10,), **TRANS),
    ConverterCase('log10_float16', F.log10, [_pos(4, 3, dtype=np.float16)], (Log10,), **F16),
    ConverterCase('log1p', F.log1p, [_pos(2, 3)], (Log1p,), **TRANS),
    ConverterCase('expm1', F.expm1, [_x(2, 3)], (Expm1,), **TRANS),
    ConverterCase('sqrt', F.sqrt, [_pos(2, 3)], (Sqrt,)),
    ConverterCase('sqrt_float16', F.sqrt, [_pos(2, 3, dtype=np.float16)], (Sqrt,), **F16),
    ConverterCase('rsqrt', F.rsqrt, [_pos(2, 3)], (Sqrt, DivFromConstant)),
    ConverterCase('square', F.square, [_x(2, 3)], (Square,)),
    ConverterCase('sin', F.sin, [_x(2, 3)], (Sin,), **TRANS),
    ConverterCase('cos', F.cos, [_x(2, 3)], (Cos,), **TRANS),
    ConverterCase('cos_float64', F.cos, [_x(2, 3, dtype=np.float64)], (Cos,), rtol=1e-12),
    ConverterCase('tan', F.tan, [_x(2, 3, low=-1.2, high=1.2)], (Tan,), **TRANS),
    ConverterCase('tan_float64', F.tan, [_x(2, 3, low=-1.2, high=1.2, dtype=np.float64)],
                  (Tan,), **VIA32),
    ConverterCase('arcsin', F.arcsin, [_unit(2, 3)], (Arcsin,), **TRANS),
    ConverterCase('arcsin_float64', F.arcsin, [_unit(2, 3, dtype=np.float64)], (Arcsin,),
                  **VIA32),
    ConverterCase('arccos', F.arccos, [_unit(2, 3)], (Arccos,), **TRANS),
    ConverterCase('arctan', F.arctan, [_x(2, 3)], (Arctan,), **TRANS),
    ConverterCase('arctan_float16', F.arctan, [_x(2, 3, dtype=np.float16)], (Arctan,), **F16),
    ConverterCase('cosh', F.cosh, [_x(2, 3)], (Cosh,), **TRANS),
    ConverterCase('sinh', F.sinh, [_x(2, 3)], (Sinh,), **TRANS),
    ConverterCase('sinh_float64', F.sinh, [_x(2, 3, dtype=np.float64)], (Sinh,), **VIA32),
    ConverterCase('arctanh', F.arctanh, [_unit(2, 3)], (Arctanh,), **TRANS),
    ConverterCase('erf', F.erf, [_x(2, 3)], (Erf,), **TRANS),
    ConverterCase('erf_float64', F.erf, [_x(2, 3, dtype=np.float64)], (Erf,), **VIA32),
    ConverterCase('erfc', F.erfc, [_x(2, 3)], (Erfc,), **TRANS),
    ConverterCase('ndtr', F.ndtr, [_x(2, 3, low=-3, high=3)], (Ndtr,), **TRANS),
    ConverterCase('identity', F.identity, [_x(2, 3)], (Identity,)),
    ConverterCase('identity_many', F.identity, [_x(2, 3), _x(4, dtype=np.float64)],
                  (Identity,)),
    # element-wise, two or more inputs
    ConverterCase('add_broadcast', lambda x, y: x + y, [_x(2, 3, 4), _x(3, 4)], (Add,)),
    ConverterCase('add_float16', lambda x, y: x + y, [_x(2, 3, dtype=np.float16),
                                                      _x(2, 3, dtype=np.float16)], (Add,), **F16),
    ConverterCase('sub_broadcast', lambda x, y: x - y, [_x(3, 1), _x(1, 4)], (Sub,)),
    ConverterCase('mul_float64', lambda x, y: x * y,
                  [_x(2, 3, dtype=np.float64), _x(3, dtype=np.float64)], (Mul,), rtol=1e-12),
    ConverterCase('div', lambda x, y: x / y, [_x(2, 3), _pos(2, 3)], (Div,)),
    ConverterCase('pow_var_var', lambda x, y: x ** y, [_pos(2, 3), _x(2, 3)], (PowVarVar,),
                  **TRANS),
    ConverterCase('maximum', F.maximum, [_x(2, 3), _x(2, 3)], (Maximum,)),
    ConverterCase('minimum', F.minimum, [_x(2, 3), _x(2, 3)], (Minimum,)),
    # onnxruntime has no float64 Max/Min before opset 8 (Max-6, Min-6).
    ConverterCase('maximum_float64', F.maximum,
                  [_x(2, 3, dtype=np.float64), _x(2, 3, dtype=np.float64)], (Maximum,),
                  opsets=(8, 13)),
    ConverterCase('minimum_float16', F.minimum,
                  [_x(2, 3, dtype=np.float16), _x(2, 3, dtype=np.float16)], (Minimum,), **F16),
    ConverterCase('multi_add', lambda x, y, z: F.add(x, y, z), [_x(2, 3), _x(3), _x(2, 1)],
                  (MultiAdd,), opsets=(7, 8, 13)),
    ConverterCase('multi_add_one', lambda x: F.add(x), [_x(2, 3)], (MultiAdd,)),
    ConverterCase('linear_interpolate', F.linear_interpolate, [_unit(2, 3), _x(2, 3), _x(2, 3)],
                  (LinearInterpolate,)),
    ConverterCase('fmod', F.fmod, [_x(3, 4, low=-5, high=5), _pos(4)], (Fmod,)),
    ConverterCase('fmod_float64', F.fmod,
                  [_x(3, 4, low=-5, high=5, dtype=np.float64), -_pos(3, 4, dtype=np.float64)],
                  (Fmod,), rtol=1e-12),
    ConverterCase('arctan2', F.arctan2, _arctan2_points(), (Arctan2,), **TRANS),
    ConverterCase('arctan2_float64', F.arctan2, [_x(3, 4, dtype=np.float64),
                                                 _x(4, dtype=np.float64)], (Arctan2,), **VIA32),
    # with a constant
    ConverterCase('add_constant', lambda x: x + 2.5, [_x(2, 3)], (AddConstant,)),
    ConverterCase('add_constant_int', lambda x: x - 2, [_x(2, 3)], (AddConstant,)),
    ConverterCase('add_constant_float16', lambda x: x + 0.1, [_x(2, 3, dtype=np.float16)],
                  (AddConstant,), **F16),
    ConverterCase('add_constant_python_float', _apply(AddConstant, 0.1),
                  [_x(2, 3, dtype=np.float16)], (AddConstant,), **F16),
    ConverterCase('add_constant_float64', lambda x: x + 0.1, [_x(2, 3, dtype=np.float64)],
                  (AddConstant,), rtol=1e-15, atol=0),
    ConverterCase('sub_from_constant', lambda x: 3.5 - x, [_x(2, 3)], (SubFromConstant,)),
    ConverterCase('mul_constant', lambda x: x * 1.5, [_x(2, 3)], (MulConstant,)),
    ConverterCase('mul_constant_div', lambda x: x / 3.0, [_x(2, 3, dtype=np.float64)],
                  (MulConstant,), rtol=1e-15, atol=0),
    ConverterCase('div_from_constant', lambda x: 2.0 / x, [_pos(2, 3)], (DivFromConstant,)),
    ConverterCase('pow_var_const', lambda x: x ** 1.5, [_pos(2, 3)], (PowVarConst,), **TRANS),
    ConverterCase('pow_var_const_square', lambda x: x ** 2, [_x(2, 3, dtype=np.float16)],
                  (PowVarConst,), **F16),
    ConverterCase('pow_const_var', lambda x: 2.0 ** x, [_x(2, 3)], (PowConstVar,), **TRANS),
    ConverterCase('clip', lambda x: F.clip(x, -0.5, 1.0), [_x(3, 4)], (Clip,),
                  opsets=(7, 11, 12, 13)),
    ConverterCase('clip_min', lambda x: F.clip(x, 0.1, None), [_x(3, 4)], (Clip,),
                  opsets=(7, 11, 13)),
    ConverterCase('clip_max_float16', lambda x: F.clip(x, None, 0.3),
                  [_x(3, 4, dtype=np.float16)], (Clip,), **F16),
    # onnxruntime has no float64 Clip before opset 12, nor float64 Max/Min before 8.
    ConverterCase('clip_float64', lambda x: F.clip(x, -0.1, 0.7), [_x(3, 4, dtype=np.float64)],
                  (Clip,), rtol=0, atol=0, opsets=(8, 11, 12, 13)),
    ConverterCase('clip_max_float64', lambda x: F.clip(x, None, 0.7),
                  [_x(3, 4, dtype=np.float64)], (Clip,), rtol=0, atol=0, opsets=(8, 12)),
    # reductions (ReduceSum takes its axes as an input since 13, the others since 18)
    ConverterCase('sum_all', F.sum, [_x(2, 3, 4)], (Sum,)),
    ConverterCase('sum_axis', lambda x: F.sum(x, axis=1), [_x(2, 3, 4)], (Sum,),
                  opsets=(7, 12, 13)),
    ConverterCase('sum_axes_keepdims', lambda x: F.sum(x, axis=(0, -1), keepdims=True),
                  [_x(2, 3, 4)], (Sum,), opsets=(7, 13)),
    ConverterCase('sum_no_axes', lambda x: F.sum(x, axis=()), [_x(2, 3)], (Sum,)),
    ConverterCase('sum_scalar', F.sum, [np.array(1.5, dtype=np.float32)], (Sum,)),
    ConverterCase('sum_float16', lambda x: F.sum(x, axis=0), [_x(5, 3, dtype=np.float16)],
                  (Sum,), **F16),
    ConverterCase('mean', lambda x: F.mean(x, axis=1), [_x(2, 3, 4)], (Mean,),
                  opsets=(7, 17, 18)),
    ConverterCase('mean_all_keepdims', lambda x: F.average(x, keepdims=True), [_x(2, 3, 4)],
                  (Mean,)),
    ConverterCase('prod', lambda x: F.prod(x, axis=(1, 2)), [_x(2, 3, 4)], (Prod,)),
    ConverterCase('max', lambda x: F.max(x, axis=-1, keepdims=True), [_x(2, 3, 4)], (Max,),
                  opsets=(7, 17, 18)),
    ConverterCase('max_all_float64', F.max, [_x(2, 3, dtype=np.float64)], (Max,)),
    ConverterCase('min', lambda x: F.min(x, axis=(0, 2)), [_x(2, 3, 4)], (Min,)),
    ConverterCase('min_no_axes', lambda x: F.min(x, axis=()), [_x(2, 3)], (Min,)),
    ConverterCase('logsumexp', F.logsumexp, [_x(2, 3, 4)], (LogSumExp,), **TRANS),
    ConverterCase('logsumexp_axis', lambda x: F.logsumexp(x, axis=1), [_x(2, 3, 4) * 60],
                  (LogSumExp,), opsets=(7, 17, 18, 13), **TRANS),
    ConverterCase('logsumexp_axes', lambda x: F.logsumexp(x, axis=(0, -1)), [_x(2, 3, 4)],
                  (LogSumExp,), **TRANS),
    ConverterCase('logsumexp_no_axes', lambda x: F.logsumexp(x, axis=()), [_x(2, 3)],
                  (LogSumExp,)),
    ConverterCase('batch_l2_norm_squared', F.batch_l2_norm_squared, [_x(3, 4, 5)],
                  (BatchL2NormSquared,), opsets=(7, 17, 18)),
    ConverterCase('batch_l2_norm_squared_2d', F.batch_l2_norm_squared,
                  [_x(3, 4, dtype=np.float64)], (BatchL2NormSquared,), rtol=1e-12),
    ConverterCase('argmax', F.argmax, [_ties()], (ArgMax,)),
    ConverterCase('argmax_axis', lambda x: F.argmax(x, axis=1), [_ties()], (ArgMax,)),
    ConverterCase('argmax_float16', lambda x: F.argmax(x, axis=-1),
                  [_x(2, 3, 4, dtype=np.float16)], (ArgMax,)),
    ConverterCase('argmin_axis', lambda x: F.argmin(x, axis=0), [_ties()], (ArgMin,)),
    ConverterCase('argmin_float64', F.argmin, [_x(3, 4, dtype=np.float64)], (ArgMin,)),
    ConverterCase('sum_to', lambda x: F.sum_to(x, (3, 1)), [_x(2, 3, 4)], (SumTo,),
                  opsets=(7, 12, 13)),
    ConverterCase('sum_to_leading', lambda x: F.sum_to(x, (4,)), [_x(2, 3, 4)], (SumTo,)),
    ConverterCase('sum_to_inner', lambda x: F.sum_to(x, (1, 4)), [_x(3, 4)], (SumTo,)),
    ConverterCase('sum_to_same', _apply(SumTo, (3, 4)), [_x(3, 4)], (SumTo,)),
    ConverterCase('cumsum', F.cumsum, [_x(2, 3, 4)], (Cumsum,)),
    ConverterCase('cumsum_axis', lambda x: F.cumsum(x, axis=-2), [_x(2, 3, 4)], (Cumsum,)),
    ConverterCase('cumsum_float16', lambda x: F.cumsum(x, axis=1), [_x(2, 5, dtype=np.float16)],
                  (Cumsum,), opsets=(11, 13, 14, 18), **F16),
    ConverterCase('cumsum_float64', lambda x: F.cumsum(x, axis=0), [_x(4, 3, dtype=np.float64)],
                  (Cumsum,), rtol=1e-12),
    # products
    ConverterCase('matmul', F.matmul, [_x(3, 4), _x(4, 2)], (MatMul,)),
    ConverterCase('matmul_trans', lambda a, b: F.matmul(a, b, transa=True, transb=True),
                  [_x(4, 3), _x(2, 4)], (MatMul,)),
    ConverterCase('matmul_batched', lambda a, b: F.matmul(a, b, transb=True),
                  [_x(2, 1, 3, 4), _x(5, 2, 4)], (MatMul,)),
    ConverterCase('matmul_vector_matrix', lambda a, b: F.matmul(a, b, transa=True),
                  [_x(4), _x(2, 4, 3)], (MatMul,)),
    ConverterCase('matmul_matrix_vector', lambda a, b: F.matmul(a, b, transb=True),
                  [_x(3, 4), _x(4)], (MatMul,)),
    ConverterCase('matmul_vectors', F.matmul, [_x(4), _x(4)], (MatMul,)),
    ConverterCase('matmul_transc', _apply(MatMul, True, False, True), [_x(4, 3), _x(4, 2)],
                  (MatMul,)),
    ConverterCase('matmul_dtype', _apply(MatMul, False, False, False, np.float64),
                  [_x(3, 4), _x(4, 2)], (MatMul,)),
    ConverterCase('matmul_mixed_dtypes', _apply(MatMul), [_x(3, 4), _x(4, 2, dtype=np.float64)],
                  (MatMul,)),
    ConverterCase('matmul_float16', F.matmul,
                  [_x(3, 4, dtype=np.float16), _x(4, 2, dtype=np.float16)], (MatMul,), **F16),
    ConverterCase('matmul_operator', lambda a, b: a @ b, [_x(2, 3, 4), _x(4, 5)],
                  (MatMulVarVar,)),
    ConverterCase('tensordot', F.tensordot, [_x(2, 3, 4), _x(3, 4, 5)], (TensorDot,)),
    ConverterCase('tensordot_pairs', lambda a, b: F.tensordot(a, b, axes=([1, 0], [0, 2])),
                  [_x(3, 4, 5), _x(4, 2, 3)], (TensorDot,)),
    ConverterCase('tensordot_outer', lambda a, b: F.tensordot(a, b, axes=0),
                  [_x(2, 3), _x(4)], (TensorDot,)),
    ConverterCase('tensordot_float64', lambda a, b: F.tensordot(a, b, axes=1),
                  [_x(2, 3, dtype=np.float64), _x(3, dtype=np.float64)], (TensorDot,),
                  rtol=1e-12),
    ConverterCase('einsum', lambda a, b: F.einsum('ij,jk->ik', a, b), [_x(2, 3), _x(3, 4)],
                  (EinSum,)),
    ConverterCase('einsum_diagonal', lambda a: F.einsum('ii->i', a), [_x(3, 3)], (EinSum,)),
    ConverterCase('einsum_ellipsis', lambda a, b: F.einsum('...ij,...jk', a, b),
                  [_x(2, 2, 3), _x(3, 4)], (EinSum,)),
    ConverterCase('einsum_implicit_three', lambda a, b, c: F.einsum('ij,jk,k', a, b, c),
                  [_x(2, 3), _x(3, 4), _x(4)], (EinSum,)),
    ConverterCase('einsum_float64', lambda a, b: F.einsum('bi,bi->b', a, b),
                  [_x(2, 3, dtype=np.float64), _x(1, 3, dtype=np.float64)], (EinSum,),
                  rtol=1e-12),
    ConverterCase('fft', lambda re, im: F.fft((re, im)), [_x(3, 8), _x(3, 8)], (FFT,),
                  rtol=1e-4, atol=1e-5),
    ConverterCase('ifft_1d', lambda re, im: F.ifft((re, im)), [_x(5), _x(5)], (FFT,),
                  rtol=1e-4, atol=1e-5),
    ConverterCase('fft_float64', lambda re, im: F.fft((re, im)),
                  [_x(2, 3, 6, dtype=np.float64), _x(2, 3, 6, dtype=np.float64)], (FFT,),
                  rtol=1e-10, atol=1e-12, opsets=(17, 19, 20, 21)),
]


# Oldest opsets of float64 cases that onnxruntime cannot run (valid models; Max-6 and
# Clip-6 have float kernels only); the cases pin the opsets where it can.
RUNTIME_GAPS = {
    ('maximum_float64', 7): 'onnxruntime has no float64 Max-6',
    # at opset 7 the clip is low + relu(x - low), one rounding away from exact
    ('clip_float64', 7): 'onnxruntime has no float64 Clip-6 or Max-6',
    ('clip_max_float64', 7): 'onnxruntime has no float64 Clip-6 or Min-6',
    # Seen with onnxruntime 1.23.2, the newest for Python 3.10; 1.32.0 runs them right.
    ('cos_float64', 7): ('no float64 Cos kernel', '1.32'),
    ('cos_float64', 23): ('no float64 Cos kernel', '1.32'),
    ('ifft_1d', 17): ('its Split rejects the inverse DFT output', '1.32'),
    ('ifft_1d', 23): ('its Split rejects the inverse DFT output', '1.32'),
}


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []
