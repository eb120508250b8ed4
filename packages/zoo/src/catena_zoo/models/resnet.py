"""ResNet-50, -101 and -152 (He et al., 2016) with MSRA's layer names.

MSRA publishes the Caffe weights at
https://github.com/KaimingHe/deep-residual-networks (no direct download link).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

import catena.functions as F
import catena.initializers as I
import catena.links as L
from catena import link
from catena_zoo.models import _common, imagenet

__all__ = ['BottleneckA', 'BottleneckB', 'BuildingBlock', 'ResNet50Layers', 'ResNet101Layers',
           'ResNet152Layers', 'ResNetLayers', 'prepare']

_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def prepare(image: Any, size: Sequence[int] | None = (224, 224)) -> numpy.ndarray:
    """Converts an RGB image into the input of the ResNet models.

    The image is converted to RGB, resized, turned into a float array of the
    default dtype, reordered to BGR, has the MSRA mean (B, G, R) =
    (103.063, 115.903, 123.152) subtracted and is transposed to CHW.

    Args:
        image: A :class:`PIL.Image.Image`, or an ndarray of shape (H, W),
            (H, W, C) or (C, H, W) with RGB values in [0, 255] (cast to uint8
            as Chainer does).
        size: ``(width, height)`` to resize to, or None to keep the size.
            Resizing needs Pillow.

    Returns:
        numpy.ndarray: An array of shape (3, height, width).
    """
    return imagenet.prepare_image(image, size, imagenet.RESNET_MEAN_BGR)


def _conv_bn(in_channels: int, out_channels: int, ksize: int, stride: int, pad: int,
             initialW: Any) -> tuple[L.Convolution2D, L.BatchNormalization]:
    conv = L.Convolution2D(in_channels, out_channels, ksize, stride, pad, nobias=True,
                           initialW=initialW)
    return conv, L.BatchNormalization(out_channels)


class BottleneckA(link.Chain):
    """The first bottleneck of a stage: 1x1, 3x3, 1x1 convolutions plus a projected shortcut.

    Args:
        in_channels: Channels of the input.
        mid_channels: Channels of the 1x1 reduction and the 3x3 convolution.
        out_channels: Channels of the output.
        stride: Stride of the block (of the shortcut projection ``conv4``).
        initialW: Initializer of the convolution weights.
        downsample_fb: False puts the stride on the first 1x1 convolution
            (MSRA's Caffe model), True on the 3x3 one (fb.resnet.torch).
    """

    def __init__(self, in_channels: int, mid_channels: int, out_channels: int,
                 stride: int = 2, initialW: Any = None, downsample_fb: bool = False) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            self.conv1, self.bn1 = _conv_bn(in_channels, mid_channels, 1, stride_1x1, 0, initialW)
            self.conv2, self.bn2 = _conv_bn(mid_channels, mid_channels, 3, stride_3x3, 1, initialW)
            self.conv3, self.bn3 = _conv_bn(mid_channels, out_channels, 1, 1, 0, initialW)
            self.conv4, self.bn4 = _conv_bn(in_channels, out_channels, 1, stride, 0, initialW)

    def forward(self, x: Any) -> Any:
        """Returns ``relu(residual(x) + projection(x))``."""
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return F.relu(h + self.bn4(self.conv4(x)))


class BottleneckB(link.Chain):
    """A bottleneck with an identity shortcut: 1x1, 3x3, 1x1 convolutions.

    Args:
        in_channels: Channels of the input and of the output.
        mid_channels: Channels of the 1x1 reduction and the 3x3 convolution.
        initialW: Initializer of the convolution weights.
    """

    def __init__(self, in_channels: int, mid_channels: int, initialW: Any = None) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1, self.bn1 = _conv_bn(in_channels, mid_channels, 1, 1, 0, initialW)
            self.conv2, self.bn2 = _conv_bn(mid_channels, mid_channels, 3, 1, 1, initialW)
            self.conv3, self.bn3 = _conv_bn(mid_channels, in_channels, 1, 1, 0, initialW)

    def forward(self, x: Any) -> Any:
        """Returns ``relu(residual(x) + x)``."""
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return F.relu(h + x)


class BuildingBlock(link.Chain):
    """One stage of a ResNet: a :class:`BottleneckA` named ``a``, then ``b1``, ``b2``, ...

    Args:
        n_layer: Number of bottlenecks in the stage.
        in_channels: Channels of the input.
        mid_channels: Channels inside the bottlenecks.
        out_channels: Channels of the output.
        stride: Stride of the first bottleneck.
        initialW: Initializer of the convolution weights.
        downsample_fb: Where the first bottleneck strides; see :class:`BottleneckA`.
    """

    def __init__(self, n_layer: int, in_channels: int, mid_channels: int, out_channels: int,
                 stride: int, initialW: Any = None, downsample_fb: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW,
                                 downsample_fb)
            self._forward = ['a']
            for i in range(1, n_layer):
                setattr(self, f'b{i}', BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(f'b{i}')

    def forward(self, x: Any) -> Any:
        """Applies the bottlenecks in order."""
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2)


def _global_average_pooling_2d(x: Any) -> Any:
    n, channels, height, width = x.shape
    h = F.average_pooling_2d(x, (height, width), stride=1)
    return F.reshape(h, (n, channels))


class ResNetLayers(_common.PretrainedModel):
    """A ResNet of 50, 101 or 152 layers with MSRA's layer names.

    Layers: ``conv1`` (7x7 convolution, batch normalization, ReLU),
    ``pool1``, the stages ``res2`` ... ``res5`` (:class:`BuildingBlock`),
    ``pool5`` (global average pooling to (N, 2048)), ``fc6`` and ``prob``.
    Any input of at least 32x32 works.

    Args:
        pretrained_model: ``'auto'`` or a ``'*.caffemodel'`` file name for
            the published weights (not available yet: raises
            NotImplementedError), the path of an npz file to load with
            :func:`catena.serializers.load_npz`, or None (or ``''``) for
            random initialisation: convolutions from ``HeNormal(scale=1.0)``.
        n_layers: 50, 101 or 152.
        downsample_fb: False (default) strides in the first 1x1 convolution of
            each stage, as MSRA's Caffe model; True strides in the 3x3
            convolution, as fb.resnet.torch.
    """

    mean_bgr = imagenet.RESNET_MEAN_BGR
    default_extract_layers = ('pool5',)

    def __init__(self, pretrained_model: str | os.PathLike[str] | None, n_layers: int,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f'n_layers must be 50, 101 or 152; got {n_layers!r}')
        load = _common.wants_weights(pretrained_model)
        # Parameters that are about to be overwritten need no random draw.
        initialW = I.Zero() if load else I.HeNormal(scale=1.0)
        blocks = _BLOCKS[n_layers]
        self.n_layers = n_layers
        self.downsample_fb = downsample_fb
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 64, 7, 2, 3, initialW=initialW)
            self.bn1 = L.BatchNormalization(64)
            self.res2 = BuildingBlock(blocks[0], 64, 64, 256, 1, initialW, downsample_fb)
            self.res3 = BuildingBlock(blocks[1], 256, 128, 512, 2, initialW, downsample_fb)
            self.res4 = BuildingBlock(blocks[2], 512, 256, 1024, 2, initialW, downsample_fb)
            self.res5 = BuildingBlock(blocks[3], 1024, 512, 2048, 2, initialW, downsample_fb)
            self.fc6 = L.Linear(2048, 1000)
        if not load:
            return
        assert pretrained_model is not None
        if isinstance(pretrained_model, str) and pretrained_model.endswith('.caffemodel'):
            _common.retrieve_published_weights(self, pretrained_model)
        _common.load_weights(self, pretrained_model)

    @property
    def functions(self) -> dict[str, list[_common.LayerFunction]]:
        """The layers in forward order, each with the callables that compute it."""
        return {
            'conv1': [self.conv1, self.bn1, F.relu],
            'pool1': [_max_pooling_2d],
            'res2': [self.res2],
            'res3': [self.res3],
            'res4': [self.res4],
            'res5': [self.res5],
            'pool5': [_global_average_pooling_2d],
            'fc6': [self.fc6],
            'prob': [F.softmax],
        }


class ResNet50Layers(ResNetLayers):
    """ResNet-50: stages of 3, 4, 6 and 3 bottlenecks.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`ResNetLayers`.
        downsample_fb: Where each stage strides; see :class:`ResNetLayers`.
    """

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101: stages of 3, 4, 23 and 3 bottlenecks.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`ResNetLayers`.
        downsample_fb: Where each stage strides; see :class:`ResNetLayers`.
    """

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152: stages of 3, 8, 36 and 3 bottlenecks.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`ResNetLayers`.
        downsample_fb: Where each stage strides; see :class:`ResNetLayers`.
    """

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 152, downsample_fb)
