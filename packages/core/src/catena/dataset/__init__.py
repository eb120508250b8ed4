"""Dataset abstraction: datasets, iterators and batch conversion (``catena.dataset``)."""

from __future__ import annotations

from catena.dataset import tabular
from catena.dataset.convert import (
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    converter,
    to_device,
)
from catena.dataset.dataset_mixin import DatasetMixin
from catena.dataset.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from catena.dataset.iterator import Iterator
from catena.dataset.tabular.tabular_dataset import TabularDataset

__all__ = [
    'ConcatWithAsyncTransfer', 'Converter', 'DatasetMixin', 'Iterator', 'TabularDataset',
    'cache_or_load_file', 'cached_download', 'concat_examples', 'converter',
    'get_dataset_directory', 'get_dataset_root', 'set_dataset_root', 'tabular', 'to_device',
]
