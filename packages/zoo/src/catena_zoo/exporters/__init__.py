"""Exporters of catena models to other frameworks' formats.

:mod:`catena_zoo.exporters.caffe` writes a Caffe prototxt and caffemodel
(Chainer's ``chainer.exporters.caffe``).
"""

from __future__ import annotations

from catena_zoo.exporters import caffe

__all__ = ['caffe']
