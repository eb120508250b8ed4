"""Links for distributed training (ChainerMN's ``chainermn.links``)."""

from __future__ import annotations

from catena.distributed.links.batch_normalization import MultiNodeBatchNormalization
from catena.distributed.links.create_mnbn_model import create_mnbn_model
from catena.distributed.links.multi_node_chain_list import MultiNodeChainList
from catena.distributed.links.n_step_rnn import MultiNodeNStepRNN, create_multi_node_n_step_rnn

__all__ = ['MultiNodeBatchNormalization', 'MultiNodeChainList', 'MultiNodeNStepRNN',
           'create_mnbn_model', 'create_multi_node_n_step_rnn']
