"""VGG-16 and VGG-19 (Simonyan and Zisserman, 2014) with the VGG team's layer names.

The published Caffe weights are released by the VGG team under CC BY 4.0.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

import catena.functions as F
import catena.initializers as I
import catena.links as L
from catena_zoo.models import _common, imagenet

_N_CONVS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_CHANNELS = (64, 128, 256, 512, 512)


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
        pretrained_model: ``'auto'`` for the published weights (not available
            yet: raises NotImplementedError), the path of an npz file to load
            with :func:`catena.serializers.load_npz`, or None (or ``''``) for
            random initialisation: weights from ``Normal(0.01)``, zero biases.
        n_layers: 16 or 19.
    """

    mean_bgr = imagenet.VGG_MEAN_BGR
    default_extract_layers = ('fc7',)

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
            for block, (channels, n_convs) in enumerate(zip(_CHANNELS, _N_CONVS[n_layers]), 1):
                names = [f'conv{block}_{i}' for i in range(1, n_convs + 1)]
                for name in names:
                    setattr(self, name, L.Convolution2D(in_channels, channels, 3, 1, 1, **init))
                    in_channels = channels
                self._conv_names.append(names)
            self.fc6 = L.Linear(512 * 7 * 7, 4096, **init)
            self.fc7 = L.Linear(4096, 4096, **init)
            self.fc8 = L.Linear(4096, 1000, **init)
        if load:
            assert pretrained_model is not None
            _common.load_weights(self, pretrained_model)

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

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto') -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG-19: 16 convolutions (adds ``conv3_4``, ``conv4_4``, ``conv5_4``) and three linear.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`VGGLayers`.
    """

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto') -> None:
        super().__init__(pretrained_model, 19)


__all__ = ['VGG16Layers', 'VGG19Layers', 'VGGLayers', 'prepare']
