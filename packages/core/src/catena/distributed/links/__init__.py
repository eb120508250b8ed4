"""Links for distributed training (ChainerMN's ``chainermn.links``)."""

from __future__ import annotations

from catena.distributed.links.batch_normalization import MultiNodeBatchNormalization
from catena.distributed.links.create_mnbn_model import create_mnbn_model
from catena.distributed.links.multi_node_chain_list import MultiNodeChainList

__all__ = ['MultiNodeBatchNormalization', 'MultiNodeChainList', 'create_mnbn_model']
