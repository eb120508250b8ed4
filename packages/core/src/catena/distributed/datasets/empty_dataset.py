"""Datasets for ranks that take no input data (ChainerMN's
``chainermn.datasets.empty_dataset``)."""

from __future__ import annotations

from typing import Any


def create_empty_dataset(dataset: Any) -> list[tuple[()]]:
    """Returns a dataset of ``len(dataset)`` empty tuples.

    Ranks that take no input data (for example in model parallelism, where
    another rank feeds them through the communicator) iterate over it to stay
    in step with the ranks that do.
    """
    return [()] * len(dataset)
