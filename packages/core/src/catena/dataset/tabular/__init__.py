"""Column-oriented datasets (``catena.dataset.tabular``)."""

from __future__ import annotations

# tabular_dataset first: the views it imports at its end subclass DelegateDataset,
# whose module needs TabularDataset to exist.
from catena.dataset.tabular.tabular_dataset import TabularDataset  # isort: skip
from catena.dataset.tabular.delegate_dataset import DelegateDataset
from catena.dataset.tabular.from_data import from_data

__all__ = ['DelegateDataset', 'TabularDataset', 'from_data']
