"""ResNet-50, -101 and -152 (He et al., 2016) with MSRA's layer names.

MSRA publishes the Caffe weights at
https://github.com/KaimingHe/deep-residual-networks through a shared folder,
with no direct download link: the caffemodel is placed by hand in the models
directory, or served by a mirror (see :mod:`catena_zoo.models._weights`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy

import catena.functions as F
import catena.initializers as I
import catena.links as L
from catena import link, serializers
from catena_zoo.caffe import CaffeFunction
from catena_zoo.models import _common, _weights, imagenet
from catena_zoo.models.imagenet import available

__all__ = ['BottleneckA', 'BottleneckB', 'BuildingBlock', 'ResNet50Layers', 'ResNet101Layers',
           'ResNet152Layers', 'ResNetLayers', 'available', 'prepare']

_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}
_HOMEPAGE = 'https://github.com/KaimingHe/deep-residual-networks'
_PUBLISHED = {
    n_layers: _weights.PublishedWeights(
        f'ResNet-{n_layers}-model.caffemodel', f'ResNet-{n_layers}-model.npz', sha1=sha1,
        homepage=_HOMEPAGE)
    for n_layers, sha1 in ((50, 'b7c79ccc21ad0479cddc0dd78b1d20c4d722908d'),
                           (101, '1dbf5f493926bb9b6b3363b12d5133c0f8b78904'),
                           (152, '251edb93604ac8268c7fd2227a0f15144310e1aa'))
}


def caffe_block_names(stage: int, n_blocks: int, n_layers: int) -> list[str]:
    """MSRA's names of a stage's bottlenecks: ``2a, 2b, 2c`` or ``3a, 3b1, 3b2, ...``.

    ResNet-50 letters its blocks; the deeper nets letter the first block and
    number the rest (``res4b22`` is the 23rd block of ResNet-101's stage 4),
    except in stages 2 and 5, which keep letters.
    """
    if n_layers == 50 or stage in (2, 5):
        return [f'{stage}{chr(ord("a") + i)}' for i in range(n_blocks)]
    return [f'{stage}a'] + [f'{stage}b{i}' for i in range(1, n_blocks)]


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


def _copy_conv(caffe: Any, layer: str, conv: L.Convolution2D, where: str) -> None:
    source = _common.caffe_layer(caffe, layer)
    _common.copy_blob(conv.W, source.W, layer, f'{where}/W')
    if conv.b is not None:
        if source.b is None:
            conv.b.array[...] = 0
        else:
            _common.copy_blob(conv.b, source.b, layer, f'{where}/b')


def _copy_batch_norm(caffe: Any, suffix: str, bn: L.BatchNormalization, where: str) -> None:
    """Copies ``bn<suffix>``'s statistics and ``scale<suffix>``'s factors into ``bn``."""
    stats = _common.caffe_layer(caffe, f'bn{suffix}' if suffix != 'conv1' else 'bn_conv1')
    scale = _common.caffe_layer(caffe, f'scale{suffix}' if suffix != 'conv1' else 'scale_conv1')
    _common.copy_blob(bn.avg_mean, stats.avg_mean, f'bn{suffix}', f'{where}/avg_mean')
    _common.copy_blob(bn.avg_var, stats.avg_var, f'bn{suffix}', f'{where}/avg_var')
    _common.copy_blob(bn.gamma, scale.W, f'scale{suffix}', f'{where}/gamma')
    if getattr(scale, 'bias', None) is None:
        raise ValueError(f'the caffemodel\'s layer scale{suffix} has no bias, which '
                         f'{where}/beta needs')
    _common.copy_blob(bn.beta, scale.bias.b, f'scale{suffix}', f'{where}/beta')


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
        pretrained_model: ``'auto'`` for MSRA's published weights
            (``ResNet-<n>-model.caffemodel``, placed by hand in the models
            directory or served by a mirror, converted to an npz on first
            use), a ``'*.caffemodel'`` file name in the models directory (a
            caffemodel with MSRA's layout, converted to ``<name>.npz``), the
            path of an npz file to load with
            :func:`catena.serializers.load_npz`, or None (or ``''``) for
            random initialisation: convolutions from ``HeNormal(scale=1.0)``.
        n_layers: 50, 101 or 152.
        downsample_fb: False (default) strides in the first 1x1 convolution of
            each stage, as MSRA's Caffe model; True strides in the 3x3
            convolution, as fb.resnet.torch.
    """

    mean_bgr = imagenet.RESNET_MEAN_BGR
    default_extract_layers = ('pool5',)
    #: Output channels of ``conv1``.
    stem_channels: ClassVar[int] = 64
    #: (bottleneck, output) channels of the stages ``res2`` ... ``res5``.
    stage_channels: ClassVar[tuple[tuple[int, int], ...]] = (
        (64, 256), (128, 512), (256, 1024), (512, 2048))
    n_classes: ClassVar[int] = 1000
    #: MSRA's caffemodel for each depth.
    published: ClassVar[dict[int, _weights.PublishedWeights]] = _PUBLISHED
    #: The depth a subclass always builds (None: the ``n_layers`` argument decides).
    n_layers_default: ClassVar[int | None] = None

    res2: BuildingBlock
    res3: BuildingBlock
    res4: BuildingBlock
    res5: BuildingBlock

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
        self._caffemodel_name: str | None = None
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, self.stem_channels, 7, 2, 3, initialW=initialW)
            self.bn1 = L.BatchNormalization(self.stem_channels)
            in_channels = self.stem_channels
            for stage, (n_blocks, (mid, out), stride) in enumerate(
                    zip(blocks, self.stage_channels, (1, 2, 2, 2)), 2):
                setattr(self, f'res{stage}', BuildingBlock(
                    n_blocks, in_channels, mid, out, stride, initialW, downsample_fb))
                in_channels = out
            self.fc6 = L.Linear(in_channels, self.n_classes)
        if not load:
            return
        if isinstance(pretrained_model, str) and pretrained_model.endswith('.caffemodel'):
            self._caffemodel_name = pretrained_model
            pretrained_model = 'auto'
        _common.load_weights(self, pretrained_model)

    def published_weights(self) -> _weights.PublishedWeights:
        """MSRA's caffemodel for this depth, or the caffemodel named by ``pretrained_model``."""
        weights = self.published[self.n_layers]
        name = self._caffemodel_name
        if name is None or name == weights.caffemodel:
            return weights
        if os.path.basename(name) != name:
            raise ValueError('a caffemodel given by name must be a file name in the models '
                             f'directory {_weights.models_directory()}; got {name!r} (pass '
                             'the npz path of converted weights instead)')
        return dataclasses.replace(weights, caffemodel=name, npz=name[:-len('.caffemodel')]
                                   + '.npz', sha1=None)

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str,
                                  n_layers: int | None = None) -> None:
        """Converts a caffemodel with MSRA's layout into an npz that the model loads.

        Works offline. The caffemodel is read with
        ``CaffeFunction(path_caffemodel, strict=True)``; each stage's
        ``res<s><b>_branch2{a,b,c}`` and ``_branch1`` convolutions, with their
        ``bn*`` statistics and ``scale*`` factors, become the bottlenecks'
        ``conv1..3``/``conv4`` and ``bn1..4``; ``conv1``, ``bn_conv1``,
        ``scale_conv1`` and ``fc1000`` become ``conv1``, ``bn1`` and ``fc6``.

        Args:
            path_caffemodel: The ``ResNet-{50,101,152}-model.caffemodel`` file.
            path_npz: Where to write the npz (written atomically).
            n_layers: 50, 101 or 152; only for :class:`ResNetLayers` itself.
        """
        caffe = CaffeFunction(path_caffemodel, strict=True)
        model = _common.build_for_conversion(cls, n_layers)
        _copy_conv(caffe, 'conv1', model.conv1, 'conv1')
        _copy_batch_norm(caffe, 'conv1', model.bn1, 'bn1')
        for stage in (2, 3, 4, 5):
            block = getattr(model, f'res{stage}')
            names = caffe_block_names(stage, len(block._forward), model.n_layers)
            for child, caffe_name in zip(block._forward, names):
                bottleneck = getattr(block, child)
                branches = ['2a', '2b', '2c'] + (['1'] if child == 'a' else [])
                for index, branch in enumerate(branches, 1):
                    layer = f'{caffe_name}_branch{branch}'
                    where = f'res{stage}/{child}'
                    _copy_conv(caffe, f'res{layer}', getattr(bottleneck, f'conv{index}'),
                               f'{where}/conv{index}')
                    _copy_batch_norm(caffe, layer, getattr(bottleneck, f'bn{index}'),
                                     f'{where}/bn{index}')
        fc = _common.caffe_layer(caffe, 'fc1000')
        _common.copy_blob(model.fc6.W, fc.W, 'fc1000', 'fc6/W')
        _common.copy_blob(model.fc6.b, fc.b, 'fc1000', 'fc6/b')
        serializers.save_npz(path_npz, model, compression=False)

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

    n_layers_default = 50

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101: stages of 3, 4, 23 and 3 bottlenecks.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`ResNetLayers`.
        downsample_fb: Where each stage strides; see :class:`ResNetLayers`.
    """

    n_layers_default = 101

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152: stages of 3, 8, 36 and 3 bottlenecks.

    Args:
        pretrained_model: ``'auto'``, an npz path or None; see :class:`ResNetLayers`.
        downsample_fb: Where each stage strides; see :class:`ResNetLayers`.
    """

    n_layers_default = 152

    def __init__(self, pretrained_model: str | os.PathLike[str] | None = 'auto',
                 downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 152, downsample_fb)
