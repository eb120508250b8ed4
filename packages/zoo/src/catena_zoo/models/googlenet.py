"""GoogLeNet (Szegedy et al., 2014) with the layer names of BVLC's Caffe model.

BVLC releases the Caffe weights without restriction
(https://github.com/BVLC/caffe/tree/master/models/bvlc_googlenet).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy

import catena.functions as F
import catena.initializers as I
import catena.links as L
from catena import serializers
from catena_zoo.caffe import CaffeFunction
from catena_zoo.models import _common, _weights, imagenet
from catena_zoo.models.imagenet import available

__all__ = ['GoogLeNet', 'available', 'prepare']

# The published file is served over plain HTTP only; the pinned SHA-1 guards it.
_PUBLISHED = _weights.PublishedWeights(
    'bvlc_googlenet.caffemodel', 'bvlc_googlenet.npz',
    sha1='405fc5acd08a3bb12de8ee5e23a96bec22f08204',
    homepage='https://github.com/BVLC/caffe/tree/master/models/bvlc_googlenet',
    url='http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel')

# The model's convolutions and linear layers, named by BVLC's layer names.
_INCEPTION_LAYERS = {'conv1': '1x1', 'proj3': '3x3_reduce', 'conv3': '3x3',
                     'proj5': '5x5_reduce', 'conv5': '5x5', 'projp': 'pool_proj'}
_CAFFE_NAMES = {
    'conv1': 'conv1/7x7_s2', 'conv2_reduce': 'conv2/3x3_reduce', 'conv2': 'conv2/3x3',
    'loss1_conv': 'loss1/conv', 'loss1_fc1': 'loss1/fc', 'loss1_fc2': 'loss1/classifier',
    'loss2_conv': 'loss2/conv', 'loss2_fc1': 'loss2/fc', 'loss2_fc2': 'loss2/classifier',
    'loss3_fc': 'loss3/classifier',
    **{f'inc{block}/{child}': f'inception_{block}/{caffe}'
       for block in ('3a', '3b', '4a', '4b', '4c', '4d', '4e', '5a', '5b')
       for child, caffe in _INCEPTION_LAYERS.items()},
}


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an RGB image into the input of GoogLeNet.

    The image is converted to RGB, resized, turned into a float array of the
    default dtype, reordered to BGR, has BVLC's mean (B, G, R) =
    (104, 117, 123) subtracted and is transposed to CHW.

    Args:
        image: A :class:`PIL.Image.Image`, or an ndarray of shape (H, W),
            (H, W, C) or (C, H, W) with RGB values in [0, 255] (cast to uint8
            as Chainer does).
        size: ``(width, height)`` to resize to, or None to keep the size.
            Resizing needs Pillow.

    Returns:
        numpy.ndarray: An array of shape (3, height, width).
    """
    return imagenet.prepare_image(image, size, imagenet.GOOGLENET_MEAN_BGR)


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x: Any) -> Any:
    return F.local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_2d_k5(x: Any) -> Any:
    return F.average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x: Any) -> Any:
    return F.average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return F.dropout(x, ratio=0.4)


class GoogLeNet(_common.PretrainedModel):
    """GoogLeNet as trained by BVLC, with its two auxiliary classifiers.

    Layers: ``conv1``, ``pool1``, ``conv2_reduce``, ``conv2``, ``pool2``,
    ``inception_3a``, ``inception_3b``, ``pool3``, ``inception_4a`` ...
    ``inception_4e``, ``pool4``, ``inception_5a``, ``inception_5b``,
    ``pool5`` (7x7 average pooling, (N, 1024, 1, 1)), ``loss3_fc`` and
    ``prob``; then the auxiliary heads ``loss1_fc2`` (computed from
    ``inception_4a``) and ``loss2_fc2`` (from ``inception_4d``), which come
    after ``prob`` so that asking for ``prob`` alone skips them. All layers
    need 224x224 inputs.

    Args:
        pretrained_model: ``'auto'`` for BVLC's published weights (downloaded
            and converted to an npz on first use), the path of an npz file to load
            with :func:`catena.serializers.load_npz`, or None (or ``''``) for
            random initialisation: weights from ``LeCunUniform(scale=1.0)``.
    """

    mean_bgr = imagenet.GOOGLENET_MEAN_BGR
    default_extract_layers = ('pool5',)
    branch_inputs = {'loss1_fc2': 'inception_4a', 'loss2_fc2': 'inception_4d'}
    #: BVLC's caffemodel.
    published: ClassVar[_weights.PublishedWeights] = _PUBLISHED

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto') -> None:
        super().__init__()
        load = _common.wants_weights(pretrained_model)
        # Parameters that are about to be overwritten need no random draw.
        initialW = I.Zero() if load else I.LeCunUniform(scale=1.0)
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 64, 7, stride=2, pad=3, initialW=initialW)
            self.conv2_reduce = L.Convolution2D(64, 64, 1, initialW=initialW)
            self.conv2 = L.Convolution2D(64, 192, 3, stride=1, pad=1, initialW=initialW)
            self.inc3a = L.Inception(192, 64, 96, 128, 16, 32, 32, conv_init=initialW)
            self.inc3b = L.Inception(256, 128, 128, 192, 32, 96, 64, conv_init=initialW)
            self.inc4a = L.Inception(480, 192, 96, 208, 16, 48, 64, conv_init=initialW)
            self.inc4b = L.Inception(512, 160, 112, 224, 24, 64, 64, conv_init=initialW)
            self.inc4c = L.Inception(512, 128, 128, 256, 24, 64, 64, conv_init=initialW)
            self.inc4d = L.Inception(512, 112, 144, 288, 32, 64, 64, conv_init=initialW)
            self.inc4e = L.Inception(528, 256, 160, 320, 32, 128, 128, conv_init=initialW)
            self.inc5a = L.Inception(832, 256, 160, 320, 32, 128, 128, conv_init=initialW)
            self.inc5b = L.Inception(832, 384, 192, 384, 48, 128, 128, conv_init=initialW)
            self.loss3_fc = L.Linear(1024, 1000, initialW=initialW)

            self.loss1_conv = L.Convolution2D(512, 128, 1, initialW=initialW)
            self.loss1_fc1 = L.Linear(2048, 1024, initialW=initialW)
            self.loss1_fc2 = L.Linear(1024, 1000, initialW=initialW)

            self.loss2_conv = L.Convolution2D(528, 128, 1, initialW=initialW)
            self.loss2_fc1 = L.Linear(2048, 1024, initialW=initialW)
            self.loss2_fc2 = L.Linear(1024, 1000, initialW=initialW)
        if load:
            _common.load_weights(self, pretrained_model)

    def published_weights(self) -> _weights.PublishedWeights:
        """BVLC's caffemodel."""
        return self.published

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts BVLC's caffemodel into an npz that the model loads.

        Works offline. The caffemodel is read with
        ``CaffeFunction(path_caffemodel, strict=True)`` and each convolution
        and linear layer copied across by BVLC's name (``inception_3a/1x1``
        becomes ``inc3a/conv1``, ``loss3/classifier`` becomes ``loss3_fc``).

        Args:
            path_caffemodel: The ``bvlc_googlenet.caffemodel`` file.
            path_npz: Where to write the npz (written atomically).
        """
        caffe = CaffeFunction(path_caffemodel, strict=True)
        model = cls(_common.FILLED_LATER)
        child: Any
        for name, child in model.namedlinks(skipself=True):
            name = name.lstrip('/')
            if name not in _CAFFE_NAMES:
                continue
            layer = _CAFFE_NAMES[name]
            source = _common.caffe_layer(caffe, layer)
            _common.copy_blob(child.W, source.W, layer, f'{name}/W')
            _common.copy_blob(child.b, source.b, layer, f'{name}/b')
        serializers.save_npz(path_npz, model, compression=False)

    @property
    def functions(self) -> dict[str, list[_common.LayerFunction]]:
        """The layers in forward order, each with the callables that compute it."""
        return {
            'conv1': [self.conv1, F.relu],
            'pool1': [_max_pooling_2d, _local_response_normalization],
            'conv2_reduce': [self.conv2_reduce, F.relu],
            'conv2': [self.conv2, F.relu, _local_response_normalization],
            'pool2': [_max_pooling_2d],
            'inception_3a': [self.inc3a],
            'inception_3b': [self.inc3b],
            'pool3': [_max_pooling_2d],
            'inception_4a': [self.inc4a],
            'inception_4b': [self.inc4b],
            'inception_4c': [self.inc4c],
            'inception_4d': [self.inc4d],
            'inception_4e': [self.inc4e],
            'pool4': [_max_pooling_2d],
            'inception_5a': [self.inc5a],
            'inception_5b': [self.inc5b],
            'pool5': [_average_pooling_2d_k7],
            'loss3_fc': [_dropout, self.loss3_fc],
            'prob': [F.softmax],
            'loss1_fc2': [_average_pooling_2d_k5, self.loss1_conv, F.relu, self.loss1_fc1,
                          F.relu, self.loss1_fc2],
            'loss2_fc2': [_average_pooling_2d_k5, self.loss2_conv, F.relu, self.loss2_fc1,
                          F.relu, self.loss2_fc2],
        }
