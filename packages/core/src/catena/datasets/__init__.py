"""Dataset examples: general datasets and the split helpers (``catena.datasets``)."""

from __future__ import annotations

from catena.datasets.cifar import get_cifar10, get_cifar100
from catena.datasets.concatenated_dataset import ConcatenatedDataset
from catena.datasets.dict_dataset import DictDataset
from catena.datasets.fashion_mnist import get_fashion_mnist, get_fashion_mnist_labels
from catena.datasets.image_dataset import ImageDataset, LabeledImageDataset
from catena.datasets.kuzushiji_mnist import get_kuzushiji_mnist, get_kuzushiji_mnist_labels
from catena.datasets.mnist import get_mnist
from catena.datasets.pickle_dataset import (
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from catena.datasets.ptb import get_ptb_words, get_ptb_words_vocabulary
from catena.datasets.sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from catena.datasets.svhn import get_svhn
from catena.datasets.text_dataset import TextDataset
from catena.datasets.transform_dataset import TransformDataset
from catena.datasets.tuple_dataset import TupleDataset
from catena.datasets.zipped_image_dataset import (
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)

__all__ = [
    'ConcatenatedDataset', 'DictDataset', 'ImageDataset', 'LabeledImageDataset',
    'LabeledZippedImageDataset', 'MultiZippedImageDataset', 'PickleDataset',
    'PickleDatasetWriter', 'SubDataset', 'TextDataset', 'TransformDataset', 'TupleDataset',
    'ZippedImageDataset', 'get_cifar10', 'get_cifar100', 'get_cross_validation_datasets',
    'get_cross_validation_datasets_random', 'get_fashion_mnist', 'get_fashion_mnist_labels',
    'get_kuzushiji_mnist', 'get_kuzushiji_mnist_labels', 'get_mnist', 'get_ptb_words',
    'get_ptb_words_vocabulary', 'get_svhn', 'open_pickle_dataset', 'open_pickle_dataset_writer',
    'split_dataset', 'split_dataset_n', 'split_dataset_n_random', 'split_dataset_random',
]
