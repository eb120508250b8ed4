"""catena-zoo: pretrained vision models and Caffe import/export for catena.

The models (:class:`VGG16Layers`, :class:`VGG19Layers`,
:class:`ResNet50Layers`, :class:`ResNet101Layers`, :class:`ResNet152Layers`
and :class:`GoogLeNet`) are importable from here and, once the plugin is
installed, appear on ``catena.links``. Each family's ``prepare`` lives in its
module: ``catena_zoo.models.vgg.prepare``, ``catena_zoo.models.resnet.prepare``
and ``catena_zoo.models.googlenet.prepare``.

Nothing heavy is imported with the package: the models load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = '0.1.0'

_MODEL_NAMES = frozenset({
    'VGG16Layers', 'VGG19Layers', 'ResNet50Layers', 'ResNet101Layers', 'ResNet152Layers',
    'GoogLeNet',
})

__all__ = ['GoogLeNet', 'ResNet101Layers', 'ResNet152Layers', 'ResNet50Layers', 'VGG16Layers',
           'VGG19Layers', '__version__']


def __getattr__(name: str) -> Any:
    if name in _MODEL_NAMES:
        return getattr(importlib.import_module('catena_zoo.models'), name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
