"""Datasets for distributed training (ChainerMN's ``chainermn.datasets``)."""

from catena.distributed.datasets.empty_dataset import create_empty_dataset
from catena.distributed.datasets.scatter import scatter_dataset, scatter_index, subset_range

__all__ = ['create_empty_dataset', 'scatter_dataset', 'scatter_index', 'subset_range']
