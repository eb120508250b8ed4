"""Column-oriented datasets (``catena.dataset.tabular``)."""

from __future__ import annotations

from catena.dataset.tabular.delegate_dataset import DelegateDataset
from catena.dataset.tabular.from_data import from_data
from catena.dataset.tabular.tabular_dataset import TabularDataset

__all__ = ['DelegateDataset', 'TabularDataset', 'from_data']
