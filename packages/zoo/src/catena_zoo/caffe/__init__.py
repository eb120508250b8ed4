"""Import of Caffe models: :class:`CaffeFunction` reads a binary ``.caffemodel``."""

from __future__ import annotations

from catena_zoo.caffe.caffe_function import CaffeFunction
from catena_zoo.caffe.errors import (
    CaffeFormatError,
    UnsupportedCaffeLayerError,
    UnsupportedCaffeLayerWarning,
)

__all__ = [
    'CaffeFormatError',
    'CaffeFunction',
    'UnsupportedCaffeLayerError',
    'UnsupportedCaffeLayerWarning',
]
