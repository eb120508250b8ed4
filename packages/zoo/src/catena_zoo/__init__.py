"""catena-zoo: pretrained vision models and Caffe import/export for catena."""

from __future__ import annotations

__version__ = '0.1.0'

__all__ = ['__version__']
