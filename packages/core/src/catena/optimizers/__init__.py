"""Gradient-based optimizers (``catena.optimizers``)."""

from __future__ import annotations

from catena.optimizers.ada_delta import AdaDelta, AdaDeltaRule
from catena.optimizers.ada_grad import AdaGrad, AdaGradRule
from catena.optimizers.adam import AdaBound, Adam, AdamRule, AdamW, AMSBound, AMSGrad
from catena.optimizers.corrected_momentum_sgd import CorrectedMomentumSGD, CorrectedMomentumSGDRule
from catena.optimizers.momentum_sgd import MomentumSGD, MomentumSGDRule
from catena.optimizers.msvag import MSVAG, MSVAGRule
from catena.optimizers.nesterov_ag import NesterovAG, NesterovAGRule
from catena.optimizers.rmsprop import RMSprop, RMSpropRule
from catena.optimizers.rmsprop_graves import RMSpropGraves, RMSpropGravesRule
from catena.optimizers.sgd import SGD, SGDRule
from catena.optimizers.smorms3 import SMORMS3, SMORMS3Rule

__all__ = [
    'AMSBound', 'AMSGrad', 'AdaBound', 'AdaDelta', 'AdaDeltaRule', 'AdaGrad', 'AdaGradRule',
    'Adam', 'AdamRule', 'AdamW', 'CorrectedMomentumSGD', 'CorrectedMomentumSGDRule', 'MSVAG',
    'MSVAGRule', 'MomentumSGD', 'MomentumSGDRule', 'NesterovAG', 'NesterovAGRule', 'RMSprop',
    'RMSpropGraves', 'RMSpropGravesRule', 'RMSpropRule', 'SGD', 'SGDRule', 'SMORMS3',
    'SMORMS3Rule',
]
