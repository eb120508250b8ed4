"""The Kuzushiji-MNIST cursive Japanese dataset (MNIST format)."""

from __future__ import annotations

from typing import Any

import numpy

from catena.dataset import download
from catena.datasets import mnist

_BASE = 'http://codh.rois.ac.jp/kmnist/dataset/kmnist/'
# SHA-256 values as published for the Kuzushiji-MNIST archives.
_FILES = {
    'train-images-idx3-ubyte.gz':
        '51467d22d8cc72929e2a028a0428f2086b092bb31cfb79c69cc0a90ce135fde4',
    'train-labels-idx1-ubyte.gz':
        'e38f9ebcd0f3ebcdec7fc8eabdcdaef93bb0df8ea12bee65224341c8183d8e17',
    't10k-images-idx3-ubyte.gz':
        'edd7a857845ad6bb1d0ba43fe7e794d164fe2dce499a1694695a792adfac43c5',
    't10k-labels-idx1-ubyte.gz':
        '20bb9a0ef54c7db3efc55a92eef5582c109615df22683c380526788f98e42a1c',
}
for _name, _sha in _FILES.items():
    download.register_known_file(_BASE + _name, 'kuzushiji-mnist', sha256=_sha)

_LABELS = (('o', '\u304a'), ('ki', '\u304d'), ('su', '\u3059'), ('tsu', '\u3064'),
           ('na', '\u306a'), ('ha', '\u306f'), ('ma', '\u307e'), ('ya', '\u3084'),
           ('re', '\u308c'), ('wo', '\u3092'))


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """Returns the class names of Kuzushiji-MNIST, indexed by label.

    Returns:
        A new list of ``(romanisation, hiragana)`` pairs, e.g. ``('o', '\u304a')``.
    """
    return list(_LABELS)


def get_kuzushiji_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                        dtype: Any = None, label_dtype: Any = numpy.int32,
                        rgb_format: bool = False) -> tuple[Any, Any]:
    """Gets the Kuzushiji-MNIST dataset.

    Ten classes of 28x28 grey-scale cursive hiragana, in the MNIST layout. The
    arguments and the returned value are those of
    :func:`~catena.datasets.get_mnist`.

    Returns:
        A tuple of the training and test datasets.
    """
    return mnist.get_idx_dataset('pfnet/chainer/kuzushiji-mnist', _BASE, withlabel, ndim,
                                 scale, dtype, label_dtype, rgb_format)
