"""Every FunctionNode of catena.functions either has a converter or is listed here with why.

docs/compat.md names the same functions; a new FunctionNode without a
converter makes this test fail until it is converted or listed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import catena.functions
from catena.function_node import FunctionNode

pytest.importorskip('onnx')
from catena_onnx.registry import default_table  # noqa: E402

NO_ONNX_EXPRESSION = {
    'math.LGamma', 'math.DiGamma', 'math.PolyGamma', 'math.Zeta', 'math.ErfInv',
    'math.ErfcInv', 'math.Ndtri', 'math.ErfcX', 'math.LogNdtr', 'math.Cumprod',
    'math.Inv', 'math.BatchInv', 'math.BatchDet', 'math.Cholesky', 'math.CooMatMul',
    'normalization.DecorrelatedBatchNormalization',  # needs an eigendecomposition
    'loss.ConnectionistTemporalClassification', 'loss.NegativeSamplingFunction',
    'loss.Contrastive', 'loss.Triplet', 'loss.CrossCovariance', 'loss.DeCov',
    'evaluation.Accuracy', 'evaluation.BinaryAccuracy', 'evaluation.ClassificationSummary',
    'evaluation.R2_score',
    'array.Col2Im', 'array.Assign', 'util.Forget',
}
RANDOM_OR_TRACE_DEPENDENT = {
    'noise.Gaussian', 'noise.Zoneout',  # random in training mode, absent in test mode
    'pooling.Upsampling2D',  # its indexes are arrays computed while tracing
    'pooling.MaxPooling2DWithIndexes', 'pooling.MaxPoolingNDWithIndexes',
    # onnxruntime's MaxRoiPool rounds and initialises bins differently from catena
    'pooling.ROIPooling2D', 'pooling.ROIMaxPooling2D', 'pooling.ROIAveragePooling2D',
    'pooling.ROIMaxAlign2D', 'pooling.ROIAverageAlign2D', 'pooling.ROIMapApply',
}
INTERNAL = {  # base classes and pieces of backward passes
    'math.SelectorBase', 'math.IndexSelectorBase', 'pooling.Pooling2D',
    'math.ShiftForward', 'math.ShiftBackward', 'math.SplitByMask', 'math.MergeByMask',
}


def _forward_classes() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(catena.functions.__path__, 'catena.functions.'):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, FunctionNode)
                    and value.__module__ == module.__name__
                    and 'Grad' not in name and not name.startswith('_')):
                found[f'{info.name.split(".")[2]}.{name}'] = value
    return found


def test_every_function_node_is_converted_or_listed() -> None:
    converted = default_table().classes()
    listed = NO_ONNX_EXPRESSION | RANDOM_OR_TRACE_DEPENDENT | INTERNAL
    missing = [key for key, cls in _forward_classes().items()
               if key not in listed and not any(issubclass(cls, c) for c in converted)]
    assert missing == []


def test_the_lists_hold_no_converted_or_stale_names() -> None:
    classes = _forward_classes()
    converted = default_table().classes()
    listed = NO_ONNX_EXPRESSION | RANDOM_OR_TRACE_DEPENDENT | INTERNAL
    assert sorted(listed - set(classes)) == []
    assert [key for key in sorted(listed) if classes[key] in converted] == []


def test_at_least_onnx_chainers_set_is_converted() -> None:
    # onnx-chainer's 102 names, less those catena builds from other nodes
    # (Selu, RsqrtGPU) or records while tracing (sign), and ROIPooling2D.
    names = '''ClippedReLU ELU HardSigmoid LeakyReLU LogSoftmax PReLUFunction ReLU Sigmoid
        Softmax Softplus Tanh Cast Concat Copy Depth2Space Dstack ExpandDims GetItem Hstack
        Moveaxis Pad Permutate Repeat Reshape ResizeImages Rollaxis SelectItem Separate Shape
        Space2Depth SplitAxis Squeeze Stack Swapaxes Tile Transpose TransposeSequence Vstack
        Where Convolution2DFunction ConvolutionND Deconvolution2DFunction DeconvolutionND
        EmbedIDFunction LinearFunction SoftmaxCrossEntropy Dropout Absolute Add AddConstant
        Arccos Arcsin Arctan ArgMax ArgMin BroadcastTo Clip Cos Cosh Div DivFromConstant Exp
        Identity LinearInterpolate Log LogSumExp MatMul Max Maximum Mean Min Minimum Mul
        MulConstant Neg PowConstVar PowVarConst PowVarVar Prod Sin Sinh Sqrt Square Sub
        SubFromConstant Sum Tan BatchNormalization FixedBatchNormalization
        GroupNormalization LocalResponseNormalization NormalizeL2 AveragePooling2D
        AveragePoolingND MaxPooling2D MaxPoolingND Unpooling2D'''.split()
    converted = {cls.__name__ for cls in default_table().classes()}
    # catena has no Shape node (Variable.shape is a tuple)
    assert sorted(set(names) - converted - {'Shape'}) == []
