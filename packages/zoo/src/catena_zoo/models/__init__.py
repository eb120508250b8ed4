"""The pretrained ImageNet models: VGG, ResNet and GoogLeNet.

Each family module holds its classes and a module-level ``prepare`` that
turns an image into the model's input, as Chainer's
``chainer.links.model.vision.{vgg,resnet,googlenet}`` modules do:
:func:`catena_zoo.models.vgg.prepare`, :func:`catena_zoo.models.resnet.prepare`
and :func:`catena_zoo.models.googlenet.prepare`.
"""

from __future__ import annotations

from catena_zoo.models import googlenet, resnet, vgg
from catena_zoo.models.googlenet import GoogLeNet
from catena_zoo.models.resnet import (
    BottleneckA,
    BottleneckB,
    BuildingBlock,
    ResNet50Layers,
    ResNet101Layers,
    ResNet152Layers,
    ResNetLayers,
)
from catena_zoo.models.vgg import VGG16Layers, VGG19Layers, VGGLayers

#: The models that catena-zoo shows on ``catena.links``.
LINKS = {cls.__name__: cls for cls in (
    VGG16Layers, VGG19Layers, ResNet50Layers, ResNet101Layers, ResNet152Layers, GoogLeNet)}

__all__ = [
    'BottleneckA', 'BottleneckB', 'BuildingBlock', 'GoogLeNet', 'LINKS', 'ResNet101Layers',
    'ResNet152Layers', 'ResNet50Layers', 'ResNetLayers', 'VGG16Layers', 'VGG19Layers',
    'VGGLayers', 'googlenet', 'resnet', 'vgg',
]
