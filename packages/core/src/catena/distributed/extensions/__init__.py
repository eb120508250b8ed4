"""Trainer extensions for distributed training (ChainerMN's ``chainermn.extensions``)."""

from __future__ import annotations

from catena.distributed.evaluator import (
    GenericMultiNodeEvaluator,
    create_multi_node_evaluator,
)
from catena.distributed.extensions._multi_node_snapshot import multi_node_snapshot
from catena.distributed.extensions.allreduce_persistent import AllreducePersistent
from catena.distributed.extensions.checkpoint import create_multi_node_checkpointer
from catena.distributed.extensions.early_stopping_trigger import MultiNodeEarlyStoppingTrigger
from catena.distributed.extensions.observation_aggregator import ObservationAggregator

__all__ = ['AllreducePersistent', 'GenericMultiNodeEvaluator', 'MultiNodeEarlyStoppingTrigger',
           'ObservationAggregator', 'create_multi_node_checkpointer',
           'create_multi_node_evaluator', 'multi_node_snapshot']
