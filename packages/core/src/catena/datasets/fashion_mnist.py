"""The Fashion-MNIST clothing dataset (MNIST format)."""

from __future__ import annotations

from typing import Any

import numpy

from catena.dataset import download
from catena.datasets import mnist

_BASE = 'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/'
# SHA-256 values as published for the Fashion-MNIST archives.
_FILES = {
    'train-images-idx3-ubyte.gz':
        '3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84',
    'train-labels-idx1-ubyte.gz':
        'a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845',
    't10k-images-idx3-ubyte.gz':
        '346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073',
    't10k-labels-idx1-ubyte.gz':
        '67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5',
}
for _name, _sha in _FILES.items():
    download.register_known_file(_BASE + _name, 'fashion-mnist', sha256=_sha)

_LABELS = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt',
           'Sneaker', 'Bag', 'Ankle boot')


def get_fashion_mnist_labels() -> list[str]:
    """Returns the class names of Fashion-MNIST, indexed by label (a new list)."""
    return list(_LABELS)


def get_fashion_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                      dtype: Any = None, label_dtype: Any = numpy.int32,
                      rgb_format: bool = False) -> tuple[Any, Any]:
    """Gets the Fashion-MNIST dataset.

    Ten classes of 28x28 grey-scale clothing images, in the MNIST layout. The
    arguments and the returned value are those of
    :func:`~catena.datasets.get_mnist`.

    Returns:
        A tuple of the training and test datasets.
    """
    return mnist.get_idx_dataset('pfnet/chainer/fashion-mnist', _BASE, withlabel, ndim,
                                 scale, dtype, label_dtype, rgb_format)
