"""The Street View House Numbers (SVHN) dataset, cropped 32x32 digits."""

from __future__ import annotations

import os
from typing import Any

import numpy

from catena import _dtype
from catena.dataset import download
from catena.datasets import tuple_dataset

_BASE = 'http://ufldl.stanford.edu/housenumbers/'
# Only MD5 values are published for these files: the MD5 is checked on
# download and the SHA-256 recorded then (trust on first use).
_FILES = {
    'train_32x32.mat': 'e26dedcc434d2e4c54c9b2d4a06d8373',
    'test_32x32.mat': 'eb5a983be6a315427106f1b164d9cef3',
    'extra_32x32.mat': 'a93ce644f1a588dc4d68dda5feec44a7',
}
for _name, _md5 in _FILES.items():
    download.register_known_file(_BASE + _name, 'svhn', md5=_md5)

_scipy_io: Any = None


def _loadmat(path: str) -> dict[str, Any]:
    global _scipy_io
    if _scipy_io is None:
        try:
            import scipy.io  # noqa: PLC0415 - optional dependency, imported once
        except ImportError as e:
            raise ImportError(
                'catena.datasets.get_svhn reads MATLAB files with SciPy: '
                'pip install scipy') from e
        _scipy_io = scipy.io
    return _scipy_io.loadmat(path)


def _make_npz(path: str, url: str) -> dict[str, Any]:
    mat = _loadmat(download.cached_download(url))
    x = numpy.ascontiguousarray(numpy.asarray(mat['X'], numpy.uint8).transpose(3, 2, 0, 1))
    y = numpy.asarray(mat['y']).reshape(-1).astype(numpy.uint8)
    y[y == 10] = 0  # SVHN labels the digit 0 as 10
    if len(x) != len(y):
        raise ValueError(f'{url}: {len(x)} images but {len(y)} labels')
    numpy.savez_compressed(path, x=x, y=y)
    return {'x': x, 'y': y}


def _split(name: str, withlabel: bool, scale: float, image_dtype: numpy.dtype,
           label_dtype: Any) -> Any:
    path = os.path.join(download.get_dataset_directory('pfnet/chainer/svhn'), name + '.npz')
    raw = download.cache_or_load_file(
        path, lambda p: _make_npz(p, f'{_BASE}{name}_32x32.mat'), download.load_npz_cache)
    images = raw['x'].astype(image_dtype)
    images *= image_dtype.type(scale / 255.)
    if withlabel:
        return tuple_dataset.TupleDataset(images, raw['y'].astype(label_dtype))
    return images


def get_svhn(withlabel: bool = True, scale: float = 1., dtype: Any = None,
             label_dtype: Any = numpy.int32, add_extra: bool = False) -> tuple[Any, ...]:
    """Gets the SVHN dataset (needs SciPy to read the ``.mat`` files).

    Images have shape ``(3, 32, 32)``; the digit 0 has label 0.

    Args:
        withlabel (bool): Return ``(image, label)`` pairs instead of images only.
        scale (float): Pixel values are scaled to ``[0, scale]``.
        dtype: Image dtype; ``None`` uses ``catena.config.dtype``.
        label_dtype: Label dtype.
        add_extra (bool): Also return the extra training set.

    Returns:
        ``(train, test)``, or ``(train, test, extra)`` with ``add_extra``.
    """
    image_dtype = _dtype.get_dtype(dtype)
    names = ('train', 'test', 'extra') if add_extra else ('train', 'test')
    return tuple(_split(n, withlabel, scale, image_dtype, label_dtype) for n in names)
