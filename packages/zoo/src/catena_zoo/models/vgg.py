"""VGG-16 and VGG-19 (Simonyan and Zisserman, 2014) with the VGG team's layer names.

The published Caffe weights are released by the VGG team under CC BY 4.0
(https://www.robots.ox.ac.uk/~vgg/research/very_deep/).
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

_N_CONVS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_HOMEPAGE = 'https://www.robots.ox.ac.uk/~vgg/research/very_deep/'
_PUBLISHED = {
    16: _weights.PublishedWeights(
        'VGG_ILSVRC_16_layers.caffemodel', 'VGG_ILSVRC_16_layers.npz',
        sha1='9363e1f6d65f7dba68c4f27a1e62105cdf6c4e24', homepage=_HOMEPAGE,
        url='https://www.robots.ox.ac.uk/~vgg/software/very_deep/caffe/'
            'VGG_ILSVRC_16_layers.caffemodel'),
    19: _weights.PublishedWeights(
        'VGG_ILSVRC_19_layers.caffemodel', 'VGG_ILSVRC_19_layers.npz',
        sha1='239785e7862442717d831f682bb824055e51e9ba', homepage=_HOMEPAGE,
        url='https://www.robots.ox.ac.uk/~vgg/software/very_deep/caffe/'
            'VGG_ILSVRC_19_layers.caffemodel'),
}


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an RGB image into the input of the VGG models.

    The image is converted to RGB, resized, turned into a float array of the
    default dtype, reordered to BGR, has the VGG mean (B, G, R) =
    (103.939, 116.779, 123.68) subtracted and is transposed to CHW.

    Args:
        image: A :class:`PIL.Image.Image`, or an ndarray of shape (H, W),
            (H, W, C) or (C, H, W) with RGB values in [0, 255] (cast to uint8
            as Chainer does).
        size: ``(width, height)`` to resize to, or None to keep the size.
            Resizing needs Pillow.

    Returns:
        numpy.ndarray: An array of shape (3, height, width).
    """
    return imagenet.prepare_image(image, size, imagenet.VGG_MEAN_BGR)


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=2)


class VGGLayers(_common.PretrainedModel):
    """A VGG network of 16 or 19 layers, as published by the VGG team.

    Convolutions are named ``conv<block>_<index>`` and each block ends in
    ``pool<block>``; then come ``fc6`` and ``fc7`` (each with ReLU and
    dropout), ``fc8`` and ``prob``. ``fc6`` takes 512x7x7 features, so the
    layers from ``fc6`` on need 224x224 inputs (the convolutions take any
    size of at least 32x32).

    Args:
        pretrained_model: ``'auto'`` for the VGG team's published weights
            (downloaded and converted to an npz on first use; see
            :mod:`catena_zoo.models._weights`), the path of an npz file to load
            with :func:`catena.serializers.load_npz`, or None (or ``''``) for
            random initialisation: weights from ``Normal(0.01)``, zero biases.
        n_layers: 16 or 19.
    """

    mean_bgr = imagenet.VGG_MEAN_BGR
    default_extract_layers = ('fc7',)
    #: Output channels of the five convolution blocks.
    stage_channels: ClassVar[tuple[int, ...]] = (64, 128, 256, 512, 512)
    #: Width of ``fc6`` and ``fc7``, and the number of classes of ``fc8``.
    fc_units: ClassVar[int] = 4096
    n_classes: ClassVar[int] = 1000
    #: The published caffemodel for each depth.
    published: ClassVar[dict[int, _weights.PublishedWeights]] = _PUBLISHED
    #: The depth a subclass always builds (None: the ``n_layers`` argument decides).
    n_layers_default: ClassVar[int | None] = None

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 n_layers: int = 16) -> None:
        super().__init__()
        if n_layers not in _N_CONVS:
            raise ValueError(f'n_layers must be 16 or 19; got {n_layers!r}')
        load = _common.wants_weights(pretrained_model)
        # Parameters that are about to be overwritten need no random draw.
        init: dict[str, Any] = {'initialW': I.Zero() if load else I.Normal(0.01),
                                'initial_bias': I.Zero()}
        self.n_layers = n_layers
        self._conv_names: list[list[str]] = []
        in_channels = 3
        with self.init_scope():
            for block, (channels, n_convs) in enumerate(
                    zip(self.stage_channels, _N_CONVS[n_layers]), 1):
                names = [f'conv{block}_{i}' for i in range(1, n_convs + 1)]
                for name in names:
                    setattr(self, name, L.Convolution2D(in_channels, channels, 3, 1, 1, **init))
                    in_channels = channels
                self._conv_names.append(names)
            self.fc6 = L.Linear(in_channels * 7 * 7, self.fc_units, **init)
            self.fc7 = L.Linear(self.fc_units, self.fc_units, **init)
            self.fc8 = L.Linear(self.fc_units, self.n_classes, **init)
        if load:
            _common.load_weights(self, pretrained_model)

    def published_weights(self) -> _weights.PublishedWeights:
        """The VGG team's caffemodel for this depth."""
        return self.published[self.n_layers]

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str,
                                  n_layers: int | None = None) -> None:
        """Converts the VGG team's caffemodel into an npz that the model loads.

        Works offline. The caffemodel is read with
        ``CaffeFunction(path_caffemodel, strict=True)``; its layers carry the
        model's names, so each ``W`` and ``b`` is copied across by name.

        Args:
            path_caffemodel: The ``VGG_ILSVRC_{16,19}_layers.caffemodel`` file.
            path_npz: Where to write the npz (written atomically).
            n_layers: 16 or 19; only for :class:`VGGLayers` itself (the
                subclasses know their depth).
        """
        caffe = CaffeFunction(path_caffemodel, strict=True)
        model = _common.build_for_conversion(cls, n_layers)
        child: Any
        for name, child in model.namedlinks(skipself=True):
            layer = name.lstrip('/')
            source = _common.caffe_layer(caffe, layer)
            _common.copy_blob(child.W, source.W, layer, f'{layer}/W')
            _common.copy_blob(child.b, source.b, layer, f'{layer}/b')
        serializers.save_npz(path_npz, model, compression=False)

    @property
    def functions(self) -> dict[str, list[_common.LayerFunction]]:
        """The layers in forward order, each with the callables that compute it."""
        functions: dict[str, list[_common.LayerFunction]] = {}
        for block, names in enumerate(self._conv_names, 1):
            for name in names:
                functions[name] = [getattr(self, name), F.relu]
            functions[f'pool{block}'] = [_max_pooling_2d]
        functions['fc6'] = [self.fc6, F.relu, F.dropout]
        functions['fc7'] = [self.fc7, F.relu, F.dropout]
        functions['fc8'] = [self.fc8]
        functions['prob'] = [F.softmax]
        return functions


class VGG16Layers(VGGLayers):
    """VGG-16: 13 convolutions (``conv1_1`` ... ``conv5_3``) and three linear layers.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`VGGLayers`.
    """

    n_layers_default = 16

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto') -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG-19: 16 convolutions (adds ``conv3_4``, ``conv4_4``, ``conv5_4``) and three linear.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`VGGLayers`.
    """

    n_layers_default = 19

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto') -> None:
        super().__init__(pretrained_model, 19)


__all__ = ['VGG16Layers', 'VGG19Layers', 'VGGLayers', 'available', 'prepare']
