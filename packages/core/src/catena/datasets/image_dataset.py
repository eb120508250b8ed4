"""Datasets of image files listed by path (needs Pillow to read the images)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

from catena import _dtype
from catena.dataset import dataset_mixin
from catena.datasets import _image_io


def __getattr__(name: str) -> Any:
    # Chainer's flag, answered without importing Pillow.
    if name == 'available':
        return _image_io.pillow_installed()
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def _read_list(path: str) -> list[str]:
    with open(path, encoding='utf-8') as f:
        return [line.strip() for line in f if line.strip()]


class ImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of images built from a list of paths to image files.

    Each example is a ``(channels, height, width)`` array (grey-scale images
    have one channel). Images are read lazily with Pillow.

    Args:
        paths (str or list of str): Paths of the image files, or the path of a
            text file listing one image path per line.
        root (str): Directory the image paths are relative to.
        dtype: Array dtype; ``None`` uses ``catena.config.dtype``.
    """

    def __init__(self, paths: str | Sequence[str], root: str = '.',
                 dtype: Any = None) -> None:
        if isinstance(paths, (str, os.PathLike)):
            paths = _read_list(os.fspath(paths))
        self._paths = list(paths)
        self._root = root
        self._dtype = _dtype.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        return _image_io.read_image(os.path.join(self._root, self._paths[i]), self._dtype)


class LabeledImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of image and label pairs built from a list of paths and labels.

    Each example is ``(image, label)``: the image as in :class:`ImageDataset`,
    the label a 0-d array of ``label_dtype``.

    Args:
        pairs (str or list of tuples): ``(path, label)`` pairs, or the path of
            a text file whose lines are ``<image path> <integer label>``.
        root (str): Directory the image paths are relative to.
        dtype: Image dtype; ``None`` uses ``catena.config.dtype``.
        label_dtype: Label dtype.
    """

    def __init__(self, pairs: str | Sequence[tuple[str, int]], root: str = '.',
                 dtype: Any = None, label_dtype: Any = numpy.int32) -> None:
        if isinstance(pairs, (str, os.PathLike)):
            listing = os.fspath(pairs)
            parsed = []
            for n, line in enumerate(_read_list(listing), 1):
                fields = line.split()
                if len(fields) != 2:
                    raise ValueError(f'{listing} line {n}: expected "<path> <label>", '
                                     f'got {line!r}')
                parsed.append((fields[0], int(fields[1])))
            pairs = parsed
        self._pairs = list(pairs)
        self._root = root
        self._dtype = _dtype.get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _image_io.read_image(os.path.join(self._root, path), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)
