"""The MNIST handwritten digits dataset (IDX files)."""

from __future__ import annotations

import gzip
import os
from typing import Any

import numpy

from catena import _dtype
from catena.dataset import download
from catena.datasets import tuple_dataset

_BASE = 'http://yann.lecun.com/exdb/mnist/'
# SHA-256 values as published for the canonical MNIST archives.
_FILES = {
    'train-images-idx3-ubyte.gz':
        '440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609',
    'train-labels-idx1-ubyte.gz':
        '3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c',
    't10k-images-idx3-ubyte.gz':
        '8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6',
    't10k-labels-idx1-ubyte.gz':
        'f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6',
}
for _name, _sha in _FILES.items():
    download.register_known_file(_BASE + _name, 'mnist', sha256=_sha)

_IDX_DTYPES: dict[int, Any] = {0x08: numpy.uint8, 0x09: numpy.int8, 0x0B: '>i2', 0x0C: '>i4',
               0x0D: '>f4', 0x0E: '>f8'}


def read_idx(path: str) -> numpy.ndarray:
    """Reads a gzip-compressed IDX file into an array of its declared shape."""
    with gzip.open(path, 'rb') as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_DTYPES:
        raise ValueError(f'{path} is not an IDX file (bad magic number)')
    ndim = data[3]
    header = 4 + 4 * ndim
    shape = tuple(int(v) for v in numpy.frombuffer(data, '>u4', ndim, 4))
    dtype = numpy.dtype(_IDX_DTYPES[data[2]])
    count = int(numpy.prod(shape, dtype=numpy.int64))
    if len(data) - header != count * dtype.itemsize:
        raise ValueError(
            f'{path}: IDX header declares shape {shape} but the file holds '
            f'{len(data) - header} bytes of data')
    return numpy.frombuffer(data, dtype, count, header).reshape(shape)


def _make_npz(path: str, urls: tuple[str, str]) -> dict[str, Any]:
    images = read_idx(download.cached_download(urls[0]))
    labels = read_idx(download.cached_download(urls[1]))
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise ValueError(f'unexpected IDX shapes {images.shape} and {labels.shape}')
    x = numpy.ascontiguousarray(images.reshape(len(images), -1), dtype=numpy.uint8)
    y = labels.astype(numpy.uint8)
    numpy.savez_compressed(path, x=x, y=y)
    return {'x': x, 'y': y}


def _retrieve(name: str, split: str, urls: tuple[str, str]) -> dict[str, Any]:
    """Loads (or builds and caches) the ``x``/``y`` arrays of one split."""
    path = os.path.join(download.get_dataset_directory(name), split + '.npz')
    return download.cache_or_load_file(
        path, lambda p: _make_npz(p, urls), download.load_npz_cache)


def preprocess_images(raw: dict[str, Any], withlabel: bool, ndim: int, scale: float,
                      image_dtype: Any, label_dtype: Any, rgb_format: bool) -> Any:
    """Turns raw 28x28 ``uint8`` images and labels into a dataset."""
    images = raw['x']
    n = len(images)
    if ndim == 2:
        images = images.reshape(n, 28, 28)
    elif ndim == 3:
        images = images.reshape(n, 1, 28, 28)
        if rgb_format:
            images = numpy.broadcast_to(images, (n, 3, 28, 28))
    elif ndim != 1:
        raise ValueError(f'invalid ndim for MNIST dataset: expected 1, 2 or 3, got {ndim!r}')
    images = images.astype(image_dtype)
    images *= image_dtype.type(scale / 255.)
    if withlabel:
        labels = raw['y'].astype(label_dtype)
        return tuple_dataset.TupleDataset(images, labels)
    return images


def get_idx_dataset(name: str, base: str, withlabel: bool, ndim: int, scale: float,
                    dtype: Any, label_dtype: Any, rgb_format: bool) -> tuple[Any, Any]:
    """Shared loader of the MNIST-format datasets (train and test splits)."""
    image_dtype = _dtype.get_dtype(dtype)
    if ndim not in (1, 2, 3):
        raise ValueError(f'invalid ndim for MNIST dataset: expected 1, 2 or 3, got {ndim!r}')
    splits = []
    for split, prefix in (('train', 'train'), ('test', 't10k')):
        urls = (f'{base}{prefix}-images-idx3-ubyte.gz', f'{base}{prefix}-labels-idx1-ubyte.gz')
        raw = _retrieve(name, split, urls)
        splits.append(preprocess_images(raw, withlabel, ndim, scale, image_dtype,
                                        label_dtype, rgb_format))
    return splits[0], splits[1]


def get_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: Any = None,
              label_dtype: Any = numpy.int32, rgb_format: bool = False) -> tuple[Any, Any]:
    """Gets the MNIST dataset.

    The 28x28 grey-scale digit images are downloaded on first use, checked
    against their pinned SHA-256 and cached as ``.npz`` under
    ``get_dataset_directory('pfnet/chainer/mnist')``.

    Args:
        withlabel (bool): Return ``(image, label)`` pairs (a
            :class:`~catena.datasets.TupleDataset`) instead of images only.
        ndim (int): Dimensions of each image: 1 gives ``(784,)``, 2 gives
            ``(28, 28)`` and 3 gives ``(1, 28, 28)`` (``(3, 28, 28)`` with
            ``rgb_format``).
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype; ``None`` uses ``catena.config.dtype``.
        label_dtype: Label dtype.
        rgb_format (bool): With ``ndim=3``, repeat the grey channel three times.

    Returns:
        A tuple of the training and test datasets.
    """
    return get_idx_dataset('pfnet/chainer/mnist', _BASE, withlabel, ndim, scale, dtype,
                           label_dtype, rgb_format)
