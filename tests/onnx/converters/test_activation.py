"""Converters of catena.functions.activation against onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.functions.activation.clipped_relu import ClippedReLU
from catena.functions.activation.crelu import CReLU
from catena.functions.activation.elu import ELU
from catena.functions.activation.hard_sigmoid import HardSigmoid
from catena.functions.activation.leaky_relu import LeakyReLU
from catena.functions.activation.log_softmax import LogSoftmax
from catena.functions.activation.prelu import PReLUFunction
from catena.functions.activation.relu import ReLU
from catena.functions.activation.rrelu import RReLU
from catena.functions.activation.sigmoid import Sigmoid
from catena.functions.activation.softmax import Softmax
from catena.functions.activation.softplus import Softplus
from catena.functions.activation.swish import Swish
from catena.functions.activation.tanh import Tanh

pytest.importorskip('onnxruntime')
from catena_onnx import export  # noqa: E402
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.activation'
rng = np.random.default_rng(0)
F16 = {'rtol': 1e-2, 'atol': 1e-2}


def _x(*shape: int, dtype: type = np.float32, scale: float = 2.0) -> np.ndarray:
    return rng.uniform(-scale, scale, shape).astype(dtype)


def _w(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(0.05, 0.5, shape).astype(dtype)


def _prelu_link(x: catena.Variable) -> catena.Variable:
    return _PRELU(x)


_PRELU = L.PReLU(shape=(3,), init=0.3)

CASES = [
    ConverterCase('relu', F.relu, [_x(2, 3, 4)], (ReLU,)),
    ConverterCase('relu_float64', F.relu, [_x(3, 5, dtype=np.float64)], (ReLU,)),
    ConverterCase('relu_float16', F.relu, [_x(3, 5, dtype=np.float16)], (ReLU,), **F16),
    ConverterCase('clipped_relu', lambda x: F.clipped_relu(x, z=1.5), [_x(2, 3, 4)],
                  (ClippedReLU,)),
    # float64 before opset 12 has no Clip kernel in onnxruntime: opset 11 hits that branch
    ConverterCase('clipped_relu_float64', lambda x: F.clipped_relu(x, z=1.25),
                  [_x(4, 5, dtype=np.float64)], (ClippedReLU,), opsets=(11, 12)),
    ConverterCase('clipped_relu_float16', lambda x: F.clipped_relu(x, z=1.5),
                  [_x(4, 5, dtype=np.float16)], (ClippedReLU,), **F16),
    ConverterCase('relu6', F.relu6, [_x(3, 7, scale=9.0)], (ClippedReLU,)),
    ConverterCase('crelu', F.crelu, [_x(2, 3, 4)], (CReLU,)),
    ConverterCase('crelu_last_axis', lambda x: F.crelu(x, axis=-1), [_x(2, 3, 5)], (CReLU,)),
    ConverterCase('crelu_float64', lambda x: F.crelu(x, axis=0), [_x(3, 2, dtype=np.float64)],
                  (CReLU,)),
    ConverterCase('elu', F.elu, [_x(2, 3, 4)], (ELU,)),
    ConverterCase('elu_alpha', lambda x: F.elu(x, alpha=0.4), [_x(5, 3)], (ELU,)),
    ConverterCase('elu_float64', lambda x: F.elu(x, alpha=0.7), [_x(4, 6, dtype=np.float64)],
                  (ELU,)),
    ConverterCase('elu_float16', F.elu, [_x(4, 6, dtype=np.float16)], (ELU,), **F16),
    ConverterCase('selu', F.selu, [_x(3, 4)], (ELU,)),
    ConverterCase('hard_sigmoid', F.hard_sigmoid, [_x(3, 8, scale=4.0)], (HardSigmoid,)),
    ConverterCase('hard_sigmoid_float64', F.hard_sigmoid,
                  [_x(3, 8, scale=4.0, dtype=np.float64)], (HardSigmoid,), opsets=(11, 12)),
    ConverterCase('hard_sigmoid_float16', F.hard_sigmoid,
                  [_x(3, 8, scale=4.0, dtype=np.float16)], (HardSigmoid,), **F16),
    ConverterCase('leaky_relu', F.leaky_relu, [_x(2, 3, 4)], (LeakyReLU,)),
    ConverterCase('leaky_relu_steep', lambda x: F.leaky_relu(x, slope=1.5), [_x(4, 5)],
                  (LeakyReLU,)),
    ConverterCase('leaky_relu_negative_slope', lambda x: F.leaky_relu(x, slope=-0.3),
                  [_x(4, 5)], (LeakyReLU,)),
    ConverterCase('leaky_relu_float64', lambda x: F.leaky_relu(x, slope=0.1),
                  [_x(4, 5, dtype=np.float64)], (LeakyReLU,)),
    ConverterCase('leaky_relu_float16', F.leaky_relu, [_x(4, 5, dtype=np.float16)],
                  (LeakyReLU,), **F16),
    ConverterCase('rrelu_test_mode', lambda x: F.rrelu(x, l=0.1, u=0.3), [_x(3, 4)], (RReLU,)),
    ConverterCase('rrelu_float64', F.rrelu, [_x(3, 4, dtype=np.float64)], (RReLU,)),
    ConverterCase('rrelu_float16', F.rrelu, [_x(3, 4, dtype=np.float16)], (RReLU,), **F16),
    ConverterCase('prelu', F.prelu, [_x(2, 3, 4, 5), _w(3)], (PReLUFunction,)),
    ConverterCase('prelu_2d_slope', F.prelu, [_x(2, 3, 4, 5), _w(3, 4)], (PReLUFunction,)),
    ConverterCase('prelu_scalar_slope', F.prelu, [_x(2, 3, 4), _w()], (PReLUFunction,)),
    ConverterCase('prelu_full_slope', F.prelu, [_x(4, 3), _w(3)], (PReLUFunction,)),
    ConverterCase('prelu_link', _prelu_link, [_x(2, 3, 2)], (PReLUFunction,)),
    ConverterCase('prelu_float64', F.prelu, [_x(2, 3, 4, dtype=np.float64),
                                             _w(3, dtype=np.float64)], (PReLUFunction,)),
    ConverterCase('prelu_float16', F.prelu, [_x(2, 3, 4, dtype=np.float16),
                                             _w(3, dtype=np.float16)], (PReLUFunction,), **F16),
    ConverterCase('sigmoid', F.sigmoid, [_x(2, 3, 4, scale=8.0)], (Sigmoid,)),
    ConverterCase('sigmoid_float64', F.sigmoid, [_x(3, 4, scale=8.0, dtype=np.float64)],
                  (Sigmoid,)),
    ConverterCase('sigmoid_float16', F.sigmoid, [_x(3, 4, dtype=np.float16)], (Sigmoid,), **F16),
    ConverterCase('tanh', F.tanh, [_x(2, 3, 4)], (Tanh,)),
    ConverterCase('tanh_float64', F.tanh, [_x(3, 4, dtype=np.float64)], (Tanh,)),
    ConverterCase('tanh_float16', F.tanh, [_x(3, 4, dtype=np.float16)], (Tanh,), **F16),
    ConverterCase('softmax', F.softmax, [_x(3, 5)], (Softmax,)),
    # axis 1 of a 3-d input: before opset 13 it is swapped with the last one
    ConverterCase('softmax_middle_axis', F.softmax, [_x(2, 4, 3, scale=50.0)], (Softmax,)),
    ConverterCase('softmax_first_axis', lambda x: F.softmax(x, axis=0), [_x(3, 2, 4)],
                  (Softmax,)),
    ConverterCase('softmax_negative_axis', lambda x: F.softmax(x, axis=-1),
                  [_x(2, 3, 4, scale=200.0)], (Softmax,)),
    ConverterCase('softmax_float64', lambda x: F.softmax(x, axis=-2),
                  [_x(2, 3, 4, dtype=np.float64)], (Softmax,)),
    ConverterCase('softmax_float16', F.softmax, [_x(2, 3, 4, dtype=np.float16)], (Softmax,),
                  **F16),
    ConverterCase('log_softmax', F.log_softmax, [_x(3, 5)], (LogSoftmax,)),
    # scores near 50 carry rounding of ulp(50) = 4e-6 into x - logsumexp(x)
    ConverterCase('log_softmax_middle_axis', F.log_softmax, [_x(2, 4, 3, scale=50.0)],
                  (LogSoftmax,), rtol=1e-5, atol=1e-5),
    ConverterCase('log_softmax_negative_axis', lambda x: F.log_softmax(x, axis=-3),
                  [_x(2, 3, 4, 2)], (LogSoftmax,)),
    ConverterCase('log_softmax_float64', lambda x: F.log_softmax(x, axis=0),
                  [_x(3, 4, dtype=np.float64)], (LogSoftmax,)),
    ConverterCase('log_softmax_float16', F.log_softmax, [_x(2, 3, 4, dtype=np.float16)],
                  (LogSoftmax,), **F16),
    ConverterCase('softplus', F.softplus, [_x(3, 8, scale=30.0)], (Softplus,)),
    ConverterCase('softplus_beta', lambda x: F.softplus(x, beta=2.5), [_x(3, 8, scale=30.0)],
                  (Softplus,)),
    ConverterCase('softplus_negative_beta', lambda x: F.softplus(x, beta=-0.5), [_x(4, 5)],
                  (Softplus,)),
    ConverterCase('softplus_float64', lambda x: F.softplus(x, beta=0.5),
                  [_x(3, 8, scale=80.0, dtype=np.float64)], (Softplus,)),
    ConverterCase('softplus_float16', F.softplus, [_x(3, 8, dtype=np.float16)], (Softplus,),
                  **F16),
    ConverterCase('swish', F.swish, [_x(2, 3, 4), _w(3)], (Swish,)),
    ConverterCase('swish_scalar_beta', F.swish, [_x(2, 3), _w()], (Swish,)),
    ConverterCase('swish_2d_beta', F.swish, [_x(2, 3, 4, 2), _w(3, 4)], (Swish,)),
    ConverterCase('swish_float64', F.swish, [_x(2, 3, dtype=np.float64), _w(3, dtype=np.float64)],
                  (Swish,)),
]

def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_rrelu_in_training_mode_is_refused() -> None:
    with pytest.raises(ValueError, match='test mode'):
        export(lambda x: F.rrelu(x), [_x(3, 4)], train=True)


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []
