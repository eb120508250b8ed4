"""Links: parameterized building blocks of models (``catena.links``, imported as ``L``)."""

from __future__ import annotations

from typing import Any

from catena.links.activation.maxout import Maxout
from catena.links.activation.prelu import PReLU
from catena.links.activation.simplified_dropconnect import SimplifiedDropconnect
from catena.links.activation.swish import Swish
from catena.links.connection.bias import Bias
from catena.links.connection.bilinear import Bilinear
from catena.links.connection.convolution_2d import Convolution2D
from catena.links.connection.convolution_nd import Convolution1D, Convolution3D, ConvolutionND
from catena.links.connection.deconvolution_2d import Deconvolution2D
from catena.links.connection.deconvolution_nd import (
    Deconvolution1D,
    Deconvolution3D,
    DeconvolutionND,
)
from catena.links.connection.deformable_convolution_2d import DeformableConvolution2D
from catena.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D
from catena.links.connection.dilated_convolution_2d import DilatedConvolution2D
from catena.links.connection.embed_id import EmbedID
from catena.links.connection.highway import Highway
from catena.links.connection.inception import Inception
from catena.links.connection.inceptionbn import InceptionBN
from catena.links.connection.linear import Linear
from catena.links.connection.local_convolution_2d import LocalConvolution2D
from catena.links.connection.mlp_convolution_2d import MLPConvolution2D
from catena.links.connection.parameter import Parameter
from catena.links.connection.scale import Scale
from catena.links.loss.black_out import BlackOut
from catena.links.loss.crf1d import CRF1d
from catena.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from catena.links.loss.negative_sampling import NegativeSampling
from catena.links.model.classifier import Classifier
from catena.links.model.data_parallel import DataParallel
from catena.links.normalization.batch_normalization import BatchNormalization
from catena.links.normalization.batch_renormalization import BatchRenormalization
from catena.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)
from catena.links.normalization.group_normalization import GroupNormalization
from catena.links.normalization.layer_normalization import LayerNormalization
from catena.links.rnn.gru import GRU, StatefulGRU, StatelessGRU
from catena.links.rnn.lstm import LSTM, StatelessLSTM
from catena.links.rnn.mgu import StatefulMGU, StatelessMGU
from catena.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from catena.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from catena.links.rnn.n_step_rnn import NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNReLU, NStepRNNTanh
from catena.links.rnn.peephole import StatefulPeepholeLSTM
from catena.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from catena.links.rnn.zoneoutlstm import StatefulZoneoutLSTM

__all__ = [
    'BatchNormalization', 'BatchRenormalization', 'Bias', 'Bilinear', 'BinaryHierarchicalSoftmax',
    'BlackOut', 'CRF1d', 'ChildSumTreeLSTM', 'Classifier', 'Convolution1D', 'Convolution2D',
    'Convolution3D', 'ConvolutionND', 'DataParallel',
    'Deconvolution1D', 'Deconvolution2D', 'Deconvolution3D',
    'DeconvolutionND', 'DecorrelatedBatchNormalization', 'DeformableConvolution2D',
    'DepthwiseConvolution2D', 'DilatedConvolution2D', 'EmbedID', 'GRU', 'GroupNormalization',
    'Highway', 'Inception', 'InceptionBN', 'LSTM', 'LayerNormalization', 'Linear',
    'LocalConvolution2D', 'MLPConvolution2D', 'Maxout', 'NStepBiGRU', 'NStepBiLSTM',
    'NStepBiRNNReLU', 'NStepBiRNNTanh', 'NStepGRU', 'NStepLSTM', 'NStepRNNReLU', 'NStepRNNTanh',
    'NaryTreeLSTM', 'NegativeSampling', 'PReLU', 'Parameter', 'Scale', 'SimplifiedDropconnect',
    'StatefulGRU', 'StatefulMGU', 'StatefulPeepholeLSTM', 'StatefulZoneoutLSTM', 'StatelessGRU',
    'StatelessLSTM', 'StatelessMGU', 'Swish',
]


def __getattr__(name: str) -> Any:
    """Looks up names that plugins add through ``catena_register_links`` (the zoo's models)."""
    if not name.startswith('__'):
        from catena.plugins import _manager

        for _plugin, names in _manager.call_each('catena_register_links'):
            if name in (names or {}):
                value = names[name]
                globals()[name] = value
                return value
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
