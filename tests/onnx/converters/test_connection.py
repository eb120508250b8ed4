"""Converters of catena.functions.connection against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.functions.array.reshape import Reshape
from catena.functions.array.transpose import Transpose
from catena.functions.connection.bilinear import BilinearFunction
from catena.functions.connection.convolution_2d import Convolution2DFunction
from catena.functions.connection.convolution_nd import ConvolutionND
from catena.functions.connection.deconvolution_2d import Deconvolution2DFunction
from catena.functions.connection.deconvolution_nd import DeconvolutionND
from catena.functions.connection.embed_id import EmbedIDFunction
from catena.functions.connection.linear import LinearFunction
from catena.functions.connection.shift import ShiftFunction

pytest.importorskip('onnxruntime')
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402

MODULE = 'catena_onnx.converters.connection'
rng = np.random.default_rng(0)
F16: dict[str, Any] = {'rtol': 1e-2, 'atol': 1e-2}
# onnxruntime has no float64 Conv / ConvTranspose: the converter computes them in float32.
F64_CONV: dict[str, Any] = {'rtol': 1e-5, 'atol': 1e-5}

Conv2D = Convolution2DFunction
Deconv2D = Deconvolution2DFunction


def _x(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return rng.uniform(-2, 2, shape).astype(dtype)


def _ids(*shape: int, high: int, dtype: type = np.int32) -> np.ndarray:
    return rng.integers(0, high, shape).astype(dtype)


def _conv(**kwargs: Any) -> Any:
    return lambda x, W, b=None: F.convolution_2d(x, W, b, **kwargs)


def _deconv(**kwargs: Any) -> Any:
    return lambda x, W, b=None: F.deconvolution_2d(x, W, b, **kwargs)


def _conv_nd(**kwargs: Any) -> Any:
    return lambda x, W, b=None: F.convolution_nd(x, W, b, **kwargs)


def _deconv_nd(**kwargs: Any) -> Any:
    return lambda x, W, b=None: F.deconvolution_nd(x, W, b, **kwargs)


def _embed(ignore_label: int | None = None) -> Any:
    return lambda x, W: F.embed_id(x, W, ignore_label=ignore_label)


def _ignored_ids(label: int, dtype: type = np.int32) -> np.ndarray:
    ids = _ids(3, 4, high=5, dtype=dtype)
    ids[0, 1] = ids[2, 3] = ids[1, 0] = label
    return ids


class _LeNetLike(catena.Chain):
    """Convolutions, ReLUs and a Linear head (flattening needs the Reshape converter)."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 4, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(4, 6, ksize=3, stride=2)
            self.fc = L.Linear(None, 5)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        return self.fc(h)


class _FullyConvolutional(catena.Chain):
    """LeNet-like, with a deconvolution and a 1x1-convolution classifier."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(8, 8, ksize=3, stride=2, groups=2)
            self.up = L.Deconvolution2D(8, 4, ksize=2, stride=2)
            self.head = L.Convolution2D(4, 5, ksize=1, nobias=True)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        return self.head(F.relu(self.up(h)))


class _Bilinear(catena.Chain):
    def __init__(self, nobias: bool) -> None:
        super().__init__()
        with self.init_scope():
            self.bilinear = L.Bilinear(3, 4, 5, nobias=nobias)

    def forward(self, e1: Any, e2: Any) -> Any:
        return self.bilinear(e1, e2)


CASES = [
    # convolution_2d
    ConverterCase('conv2d', _conv(), [_x(2, 3, 7, 6), _x(4, 3, 3, 3)], (Conv2D,)),
    ConverterCase('conv2d_bias', _conv(), [_x(2, 3, 7, 6), _x(4, 3, 3, 3), _x(4)], (Conv2D,)),
    ConverterCase('conv2d_stride_pad', _conv(stride=(2, 3), pad=(1, 2)),
                  [_x(1, 2, 9, 11), _x(3, 2, 3, 2), _x(3)], (Conv2D,)),
    ConverterCase('conv2d_dilate', _conv(dilate=(2, 3), pad=1),
                  [_x(2, 2, 9, 10), _x(3, 2, 3, 3)], (Conv2D,)),
    ConverterCase('conv2d_groups', _conv(groups=3, stride=2),
                  [_x(2, 6, 8, 7), _x(9, 2, 3, 3), _x(9)], (Conv2D,)),
    ConverterCase('conv2d_cover_all', _conv(stride=3, pad=1, cover_all=True),
                  [_x(2, 3, 8, 10), _x(2, 3, 3, 3)], (Conv2D,)),
    ConverterCase('conv2d_cover_all_dilate', _conv(stride=(2, 4), dilate=2, cover_all=True),
                  [_x(1, 2, 10, 12), _x(2, 2, 2, 3), _x(2)], (Conv2D,)),
    ConverterCase('conv2d_cover_all_no_change', _conv(stride=2, cover_all=True),
                  [_x(1, 2, 7, 7), _x(2, 2, 3, 3)], (Conv2D,)),
    ConverterCase('conv2d_float64', _conv(stride=2, pad=1),
                  [_x(2, 3, 7, 6, dtype=np.float64), _x(4, 3, 3, 3, dtype=np.float64),
                   _x(4, dtype=np.float64)], (Conv2D,), **F64_CONV),
    ConverterCase('conv2d_float16', _conv(pad=1),
                  [_x(2, 3, 5, 6, dtype=np.float16), _x(4, 3, 3, 3, dtype=np.float16),
                   _x(4, dtype=np.float16)], (Conv2D,), **F16),
    ConverterCase('dilated_conv2d',
                  lambda x, W: F.dilated_convolution_2d(x, W, pad=2, dilate=2),
                  [_x(1, 3, 8, 8), _x(2, 3, 3, 3)], (Conv2D,)),
    # convolution_nd
    ConverterCase('conv1d', _conv_nd(stride=2, pad=1),
                  [_x(2, 3, 11), _x(4, 3, 3), _x(4)], (ConvolutionND,)),
    ConverterCase('conv1d_cover_all_groups', _conv_nd(stride=3, cover_all=True, groups=2),
                  [_x(2, 4, 10), _x(4, 2, 2)], (ConvolutionND,)),
    ConverterCase('conv3d', _conv_nd(stride=(1, 2, 2), pad=(0, 1, 1), dilate=(2, 1, 1)),
                  [_x(1, 2, 6, 5, 7), _x(3, 2, 2, 3, 3), _x(3)], (ConvolutionND,)),
    ConverterCase('conv3d_cover_all_float64', _conv_nd(stride=2, cover_all=True),
                  [_x(1, 2, 5, 6, 5, dtype=np.float64), _x(2, 2, 2, 2, 2, dtype=np.float64)],
                  (ConvolutionND,), **F64_CONV),
    # deconvolution_2d
    ConverterCase('deconv2d', _deconv(), [_x(2, 3, 4, 5), _x(3, 2, 3, 3)], (Deconv2D,)),
    ConverterCase('deconv2d_stride_pad_bias', _deconv(stride=(2, 3), pad=(1, 0)),
                  [_x(2, 3, 4, 5), _x(3, 2, 3, 2), _x(2)], (Deconv2D,)),
    ConverterCase('deconv2d_outsize_larger', _deconv(stride=3, pad=(1, 0), outsize=(12, 12)),
                  [_x(1, 2, 4, 3), _x(2, 3, 4, 4), _x(3)], (Deconv2D,)),
    ConverterCase('deconv2d_outsize_cover_all', _deconv(stride=3, outsize=(7, 8)),
                  [_x(1, 2, 3, 3), _x(2, 3, 3, 3)], (Deconv2D,)),
    ConverterCase('deconv2d_dilate_groups', _deconv(stride=2, dilate=(2, 1), groups=2, pad=1),
                  [_x(2, 4, 3, 4), _x(4, 3, 3, 3), _x(6)], (Deconv2D,)),
    ConverterCase('deconv2d_float64', _deconv(stride=2, outsize=(8, 10)),
                  [_x(1, 2, 4, 5, dtype=np.float64), _x(2, 2, 2, 2, dtype=np.float64),
                   _x(2, dtype=np.float64)], (Deconv2D,), **F64_CONV),
    ConverterCase('deconv2d_float16', _deconv(stride=2, pad=1),
                  [_x(1, 2, 4, 5, dtype=np.float16), _x(2, 3, 3, 3, dtype=np.float16)],
                  (Deconv2D,), **F16),
    # deconvolution_nd
    ConverterCase('deconv1d', _deconv_nd(stride=2, outsize=(12,)),
                  [_x(2, 3, 5), _x(3, 2, 3), _x(2)], (DeconvolutionND,)),
    ConverterCase('deconv1d_groups_dilate', _deconv_nd(groups=3, dilate=2),
                  [_x(1, 6, 5), _x(6, 1, 3)], (DeconvolutionND,)),
    ConverterCase('deconv3d', _deconv_nd(stride=(1, 2, 2), pad=(0, 1, 0)),
                  [_x(1, 2, 3, 4, 3), _x(2, 3, 2, 3, 2), _x(3)], (DeconvolutionND,)),
    # embed_id
    ConverterCase('embed_id', _embed(), [_ids(3, 4, high=5), _x(5, 6)], (EmbedIDFunction,)),
    ConverterCase('embed_id_int64_float64', _embed(),
                  [_ids(7, high=4, dtype=np.int64), _x(4, 3, dtype=np.float64)],
                  (EmbedIDFunction,)),
    ConverterCase('embed_id_ignore', _embed(-1), [_ignored_ids(-1), _x(5, 6)],
                  (EmbedIDFunction,), opsets=(7, 8, 9, 11)),
    ConverterCase('embed_id_ignore_valid_id', _embed(2),
                  [_ignored_ids(2, dtype=np.int64), _x(5, 2, dtype=np.float16)],
                  (EmbedIDFunction,), opsets=(8, 9), **F16),
    ConverterCase('embed_id_ignore_int16', _embed(-1),
                  [_ignored_ids(-1, dtype=np.int16), _x(5, 3)], (EmbedIDFunction,),
                  opsets=(7, 13)),
    # linear
    ConverterCase('linear', F.linear, [_x(3, 4), _x(5, 4)], (LinearFunction,),
                  opsets=(7, 10, 11)),
    ConverterCase('linear_bias', F.linear, [_x(3, 4), _x(5, 4), _x(5)], (LinearFunction,)),
    ConverterCase('linear_float64', F.linear,
                  [_x(3, 4, dtype=np.float64), _x(5, 4, dtype=np.float64)],
                  (LinearFunction,), opsets=(7, 11)),
    ConverterCase('linear_float16', F.linear,
                  [_x(3, 4, dtype=np.float16), _x(2, 4, dtype=np.float16),
                   _x(2, dtype=np.float16)], (LinearFunction,), **F16),
    ConverterCase('linear_link', L.Linear(6, 3), [_x(4, 6)], (LinearFunction,)),
    ConverterCase('linear_link_nobias', L.Linear(6, 3, nobias=True), [_x(4, 6)],
                  (LinearFunction,), opsets=(7, 13)),
    # bilinear
    ConverterCase('bilinear', F.bilinear, [_x(2, 3), _x(2, 4), _x(3, 4, 5)],
                  (BilinearFunction,)),
    ConverterCase('bilinear_linear_terms', F.bilinear,
                  [_x(3, 3), _x(3, 2), _x(3, 2, 4), _x(3, 4), _x(2, 4), _x(4)],
                  (BilinearFunction,)),
    ConverterCase('bilinear_float64', F.bilinear,
                  [_x(2, 3, dtype=np.float64), _x(2, 1, dtype=np.float64),
                   _x(3, 1, 2, dtype=np.float64)], (BilinearFunction,)),
    ConverterCase('bilinear_float16', F.bilinear,
                  [_x(2, 3, dtype=np.float16), _x(2, 2, dtype=np.float16),
                   _x(3, 2, 2, dtype=np.float16)], (BilinearFunction,), **F16),
    ConverterCase('bilinear_link', _Bilinear(nobias=False), [_x(4, 3), _x(4, 4)],
                  (BilinearFunction,)),
    # shift
    ConverterCase('shift', F.shift, [_x(2, 9, 4, 5)], (ShiftFunction,)),
    ConverterCase('shift_remainder_dilate', lambda x: F.shift(x, ksize=(3, 5), dilate=(2, -1)),
                  [_x(1, 17, 6, 7)], (ShiftFunction,), opsets=(10, 11)),
    ConverterCase('shift_beyond_image_float64', lambda x: F.shift(x, ksize=3, dilate=4),
                  [_x(1, 10, 3, 5, dtype=np.float64)], (ShiftFunction,)),
    ConverterCase('shift_float16', lambda x: F.shift(x, ksize=(1, 3)),
                  [_x(2, 4, 3, 3, dtype=np.float16)], (ShiftFunction,), **F16),
    # a chain of links
    ConverterCase('fully_convolutional_chain', _FullyConvolutional(), [_x(2, 3, 12, 12)],
                  (Conv2D, Deconv2D)),
    # graphs that also hold Reshape / Transpose nodes
    ConverterCase('depthwise_conv2d',
                  lambda x, W, b: F.depthwise_convolution_2d(x, W, b, stride=2, pad=1),
                  [_x(2, 3, 7, 7), _x(2, 3, 3, 3), _x(6)], (Conv2D, Transpose, Reshape)),
    ConverterCase('linear_n_batch_axes', lambda x, W, b: F.linear(x, W, b, n_batch_axes=2),
                  [_x(2, 3, 4, 5), _x(6, 20), _x(6)], (LinearFunction, Reshape)),
    ConverterCase('linear_flatten', F.linear, [_x(2, 3, 4), _x(5, 12)],
                  (LinearFunction, Reshape)),
    ConverterCase('lenet_like', _LeNetLike(), [_x(2, 1, 10, 10)],
                  (Conv2D, LinearFunction, Reshape)),
]


def _embedding_chain(x: Any) -> Any:
    return F.relu(F.embed_id(x, np.linspace(-1, 1, 21, dtype=np.float32).reshape(7, 3),
                             ignore_label=-1))


CASES.append(ConverterCase('embed_id_constant_weight', _embedding_chain,
                           [_ignored_ids(-1)], (EmbedIDFunction,)))

try:
    from catena.functions.connection.local_convolution_2d import LocalConvolution2DFunction
except ImportError:  # a core that composes local_convolution_2d from Im2Col and MatMul
    pass
else:
    CASES += [
        ConverterCase('local_conv2d', F.local_convolution_2d,
                      [_x(2, 3, 5, 4), _x(4, 3, 2, 3, 3, 3), _x(4, 3, 2)],
                      (LocalConvolution2DFunction,)),
        ConverterCase('local_conv2d_stride_nobias',
                      lambda x, W: F.local_convolution_2d(x, W, stride=(2, 1)),
                      [_x(1, 2, 7, 5), _x(3, 3, 4, 2, 2, 2)], (LocalConvolution2DFunction,)),
        ConverterCase('local_conv2d_float64_weight', F.local_convolution_2d,
                      [_x(2, 1, 3, 3), _x(2, 2, 2, 1, 2, 2, dtype=np.float64)],
                      (LocalConvolution2DFunction,)),
    ]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_dynamic_batch() -> None:
    """Bilinear's reshape keeps the batch size; Conv and Gemm do not bake it in."""
    from catena_onnx.export import export
    from catena_onnx.verification import run_onnxruntime

    model = _Bilinear(nobias=False)
    e1, e2 = _x(2, 3), _x(2, 4)
    onnx_model = export(model, [e1, e2], input_names=['e1', 'e2'],
                        dynamic_axes={'e1': [0], 'e2': [0]})
    e1, e2 = _x(5, 3), _x(5, 4)
    got, = run_onnxruntime(onnx_model, {'e1': e1, 'e2': e2}).values()
    with catena.using_config('train', False):
        np.testing.assert_allclose(got, model(e1, e2).array, rtol=1e-5, atol=1e-6)


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []


def test_deformable_convolution_is_refused_instead_of_frozen() -> None:
    import catena.links as L
    import catena_onnx

    link = L.DeformableConvolution2D(2, 3, 3, pad=1)
    x = np.random.default_rng(3).uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32)
    with pytest.raises(NotImplementedError, match='cannot be exported to ONNX'):
        catena_onnx.export(link, x)
    assert link(x).shape == (1, 3, 5, 5)  # restored after the export
