"""Differentiable functions (``catena.functions``, imported as ``F``)."""

from __future__ import annotations

from catena.functions.activation.clipped_relu import clipped_relu
from catena.functions.activation.crelu import crelu
from catena.functions.activation.elu import elu
from catena.functions.activation.hard_sigmoid import hard_sigmoid
from catena.functions.activation.leaky_relu import leaky_relu
from catena.functions.activation.log_softmax import log_softmax
from catena.functions.activation.maxout import maxout
from catena.functions.activation.prelu import prelu
from catena.functions.activation.relu import relu
from catena.functions.activation.relu6 import relu6
from catena.functions.activation.rrelu import rrelu
from catena.functions.activation.selu import selu
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.activation.softmax import softmax
from catena.functions.activation.softplus import softplus
from catena.functions.activation.swish import swish
from catena.functions.activation.tanh import tanh
from catena.functions.array.as_strided import as_strided
from catena.functions.array.broadcast import broadcast, broadcast_to
from catena.functions.array.cast import cast
from catena.functions.array.concat import concat
from catena.functions.array.copy import copy
from catena.functions.array.depth2space import depth2space
from catena.functions.array.diagonal import diagonal
from catena.functions.array.dstack import dstack
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.flatten import flatten
from catena.functions.array.flip import flip
from catena.functions.array.fliplr import fliplr
from catena.functions.array.flipud import flipud
from catena.functions.array.get_item import get_item
from catena.functions.array.hstack import hstack
from catena.functions.array.im2col import im2col
from catena.functions.array.moveaxis import moveaxis
from catena.functions.array.pad import pad
from catena.functions.array.pad_sequence import pad_sequence
from catena.functions.array.permutate import permutate
from catena.functions.array.repeat import repeat
from catena.functions.array.reshape import reshape
from catena.functions.array.resize_images import resize_images
from catena.functions.array.rollaxis import rollaxis
from catena.functions.array.scatter_add import scatter_add
from catena.functions.array.select_item import select_item
from catena.functions.array.separate import separate
from catena.functions.array.space2depth import space2depth
from catena.functions.array.spatial_transformer_grid import spatial_transformer_grid
from catena.functions.array.spatial_transformer_sampler import spatial_transformer_sampler
from catena.functions.array.split_axis import split_axis
from catena.functions.array.squeeze import squeeze
from catena.functions.array.stack import stack
from catena.functions.array.swapaxes import swapaxes
from catena.functions.array.tile import tile
from catena.functions.array.transpose import transpose
from catena.functions.array.transpose_sequence import transpose_sequence
from catena.functions.array.vstack import vstack
from catena.functions.array.where import where
from catena.functions.connection.bilinear import bilinear
from catena.functions.connection.convolution_2d import convolution_2d
from catena.functions.connection.convolution_nd import (
    convolution_1d,
    convolution_3d,
    convolution_nd,
)
from catena.functions.connection.deconvolution_2d import deconvolution_2d
from catena.functions.connection.deconvolution_nd import (
    deconvolution_1d,
    deconvolution_3d,
    deconvolution_nd,
)
from catena.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from catena.functions.connection.depthwise_convolution_2d import depthwise_convolution_2d
from catena.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from catena.functions.connection.embed_id import embed_id
from catena.functions.connection.linear import linear
from catena.functions.connection.local_convolution_2d import local_convolution_2d
from catena.functions.connection.shift import shift
from catena.functions.evaluation.accuracy import accuracy
from catena.functions.evaluation.binary_accuracy import binary_accuracy
from catena.functions.evaluation.classification_summary import (
    classification_summary,
    f1_score,
    fbeta_score,
    precision,
    recall,
)
from catena.functions.evaluation.r2_score import r2_score
from catena.functions.loss.absolute_error import absolute_error
from catena.functions.loss.black_out import black_out
from catena.functions.loss.contrastive import contrastive
from catena.functions.loss.crf1d import argmax_crf1d, crf1d
from catena.functions.loss.cross_covariance import cross_covariance
from catena.functions.loss.ctc import connectionist_temporal_classification
from catena.functions.loss.decov import decov
from catena.functions.loss.discriminative_loss import discriminative_margin_based_clustering_loss
from catena.functions.loss.hinge import hinge
from catena.functions.loss.huber_loss import huber_loss
from catena.functions.loss.mean_absolute_error import mean_absolute_error
from catena.functions.loss.mean_squared_error import mean_squared_error
from catena.functions.loss.negative_sampling import negative_sampling
from catena.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy
from catena.functions.loss.softmax_cross_entropy import softmax_cross_entropy
from catena.functions.loss.squared_difference import squared_difference
from catena.functions.loss.squared_error import squared_error
from catena.functions.loss.triplet import triplet
from catena.functions.loss.vae import bernoulli_nll, gaussian_kl_divergence, gaussian_nll
from catena.functions.math.arctanh import arctanh
from catena.functions.math.average import average, mean
from catena.functions.math.basic_math import absolute, add
from catena.functions.math.batch_l2_norm_squared import batch_l2_norm_squared
from catena.functions.math.bias import bias
from catena.functions.math.ceil import ceil
from catena.functions.math.cholesky import cholesky
from catena.functions.math.clip import clip
from catena.functions.math.cumprod import cumprod
from catena.functions.math.cumsum import cumsum
from catena.functions.math.det import batch_det, det
from catena.functions.math.digamma import digamma
from catena.functions.math.einsum import einsum
from catena.functions.math.erf import erf
from catena.functions.math.erfc import erfc
from catena.functions.math.erfcinv import erfcinv
from catena.functions.math.erfcx import erfcx
from catena.functions.math.erfinv import erfinv
from catena.functions.math.exponential import exp, log, log2, log10
from catena.functions.math.exponential_m1 import expm1
from catena.functions.math.fft import fft, ifft
from catena.functions.math.fix import fix
from catena.functions.math.floor import floor
from catena.functions.math.fmod import fmod
from catena.functions.math.hyperbolic import cosh, sinh
from catena.functions.math.identity import identity
from catena.functions.math.inv import batch_inv, inv
from catena.functions.math.lgamma import lgamma
from catena.functions.math.linear_interpolate import linear_interpolate
from catena.functions.math.log_ndtr import log_ndtr
from catena.functions.math.logarithm_1p import log1p
from catena.functions.math.logsumexp import logsumexp
from catena.functions.math.matmul import batch_matmul, matmul
from catena.functions.math.maximum import maximum
from catena.functions.math.minimum import minimum
from catena.functions.math.minmax import argmax, argmin, max, min
from catena.functions.math.ndtr import ndtr
from catena.functions.math.ndtri import ndtri
from catena.functions.math.polygamma import polygamma
from catena.functions.math.prod import prod
from catena.functions.math.scale import scale
from catena.functions.math.sign import sign
from catena.functions.math.sparse_matmul import sparse_matmul
from catena.functions.math.sqrt import rsqrt, sqrt
from catena.functions.math.square import square
from catena.functions.math.sum import sum
from catena.functions.math.sum_to import sum_to
from catena.functions.math.tensordot import tensordot
from catena.functions.math.trigonometric import arccos, arcsin, arctan, arctan2, cos, sin, tan
from catena.functions.math.zeta import zeta
from catena.functions.noise.dropout import dropout
from catena.functions.noise.gaussian import gaussian
from catena.functions.noise.gumbel_softmax import gumbel_softmax
from catena.functions.noise.simplified_dropconnect import simplified_dropconnect
from catena.functions.noise.zoneout import zoneout
from catena.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from catena.functions.normalization.batch_renormalization import (
    batch_renormalization,
    fixed_batch_renormalization,
)
from catena.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from catena.functions.normalization.group_normalization import group_normalization
from catena.functions.normalization.l2_normalization import normalize
from catena.functions.normalization.layer_normalization import layer_normalization
from catena.functions.normalization.local_response_normalization import (
    local_response_normalization,
)
from catena.functions.pooling.average_pooling_2d import average_pooling_2d
from catena.functions.pooling.average_pooling_nd import (
    average_pooling_1d,
    average_pooling_3d,
    average_pooling_nd,
)
from catena.functions.pooling.max_pooling_2d import max_pooling_2d
from catena.functions.pooling.max_pooling_nd import max_pooling_1d, max_pooling_3d, max_pooling_nd
from catena.functions.pooling.roi_average_align_2d import roi_average_align_2d
from catena.functions.pooling.roi_average_pooling_2d import roi_average_pooling_2d
from catena.functions.pooling.roi_max_align_2d import roi_max_align_2d
from catena.functions.pooling.roi_max_pooling_2d import roi_max_pooling_2d
from catena.functions.pooling.roi_pooling_2d import roi_pooling_2d
from catena.functions.pooling.spatial_pyramid_pooling_2d import spatial_pyramid_pooling_2d
from catena.functions.pooling.unpooling_2d import unpooling_2d
from catena.functions.pooling.unpooling_nd import unpooling_1d, unpooling_3d, unpooling_nd
from catena.functions.pooling.upsampling_2d import upsampling_2d
from catena.functions.rnn.lstm import lstm
from catena.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from catena.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from catena.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from catena.functions.rnn.slstm import slstm
from catena.functions.rnn.tree_lstm import tree_lstm
from catena.functions.util.forget import forget

__all__ = [
    'absolute', 'absolute_error', 'accuracy', 'add', 'arccos', 'arcsin', 'arctan', 'arctan2',
    'arctanh', 'argmax', 'argmax_crf1d', 'argmin', 'as_strided', 'average', 'average_pooling_1d',
    'average_pooling_2d', 'average_pooling_3d', 'average_pooling_nd', 'batch_det', 'batch_inv',
    'batch_l2_norm_squared', 'batch_matmul', 'batch_normalization', 'batch_renormalization',
    'bernoulli_nll', 'bias', 'bilinear', 'binary_accuracy', 'black_out', 'broadcast',
    'broadcast_to', 'cast', 'ceil', 'cholesky', 'classification_summary', 'clip', 'clipped_relu',
    'concat', 'connectionist_temporal_classification', 'contrastive', 'convolution_1d',
    'convolution_2d', 'convolution_3d', 'convolution_nd', 'copy', 'cos', 'cosh', 'crelu', 'crf1d',
    'cross_covariance', 'cumprod', 'cumsum', 'deconvolution_1d', 'deconvolution_2d',
    'deconvolution_3d', 'deconvolution_nd', 'decorrelated_batch_normalization', 'decov',
    'deformable_convolution_2d_sampler', 'depth2space', 'depthwise_convolution_2d', 'det',
    'diagonal', 'digamma', 'dilated_convolution_2d', 'discriminative_margin_based_clustering_loss',
    'dropout', 'dstack', 'einsum', 'elu', 'embed_id', 'erf', 'erfc', 'erfcinv', 'erfcx', 'erfinv',
    'exp', 'expand_dims', 'expm1', 'f1_score', 'fbeta_score', 'fft', 'fix',
    'fixed_batch_normalization', 'fixed_batch_renormalization',
    'fixed_decorrelated_batch_normalization', 'flatten', 'flip', 'fliplr', 'flipud', 'floor',
    'fmod', 'forget', 'gaussian', 'gaussian_kl_divergence', 'gaussian_nll', 'get_item',
    'group_normalization', 'gumbel_softmax', 'hard_sigmoid', 'hinge', 'hstack', 'huber_loss',
    'identity', 'ifft', 'im2col', 'inv', 'layer_normalization', 'leaky_relu', 'lgamma', 'linear',
    'linear_interpolate', 'local_convolution_2d', 'local_response_normalization', 'log', 'log10',
    'log1p', 'log2', 'log_ndtr', 'log_softmax', 'logsumexp', 'lstm', 'matmul', 'max',
    'max_pooling_1d', 'max_pooling_2d', 'max_pooling_3d', 'max_pooling_nd', 'maximum', 'maxout',
    'mean', 'mean_absolute_error', 'mean_squared_error', 'min', 'minimum', 'moveaxis',
    'n_step_bigru', 'n_step_bilstm', 'n_step_birnn', 'n_step_gru', 'n_step_lstm', 'n_step_rnn',
    'ndtr', 'ndtri', 'negative_sampling', 'normalize', 'pad', 'pad_sequence', 'permutate',
    'polygamma', 'precision', 'prelu', 'prod', 'r2_score', 'recall', 'relu', 'relu6', 'repeat',
    'reshape', 'resize_images', 'roi_average_align_2d', 'roi_average_pooling_2d',
    'roi_max_align_2d', 'roi_max_pooling_2d', 'roi_pooling_2d', 'rollaxis', 'rrelu', 'rsqrt',
    'scale', 'scatter_add', 'select_item', 'selu', 'separate', 'shift', 'sigmoid',
    'sigmoid_cross_entropy', 'sign', 'simplified_dropconnect', 'sin', 'sinh', 'slstm', 'softmax',
    'softmax_cross_entropy', 'softplus', 'space2depth', 'sparse_matmul',
    'spatial_pyramid_pooling_2d', 'spatial_transformer_grid', 'spatial_transformer_sampler',
    'split_axis', 'sqrt', 'square', 'squared_difference', 'squared_error', 'squeeze', 'stack',
    'sum', 'sum_to', 'swapaxes', 'swish', 'tan', 'tanh', 'tensordot', 'tile', 'transpose',
    'transpose_sequence', 'tree_lstm', 'triplet', 'unpooling_1d', 'unpooling_2d', 'unpooling_3d',
    'unpooling_nd', 'upsampling_2d', 'vstack', 'where', 'zeta', 'zoneout',
]
