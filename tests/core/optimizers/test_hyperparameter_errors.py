"""Optimizers and update rules refuse bad hyperparameters by name, before storing any."""

import inspect

import numpy as np
import pytest

from catena import optimizers

FLAGS = {'amsgrad', 'adabound', 'eps_inside_sqrt'}
OPTIMIZERS = [optimizers.AMSBound, optimizers.AMSGrad, optimizers.AdaBound, optimizers.AdaDelta,
              optimizers.AdaGrad, optimizers.Adam, optimizers.AdamW,
              optimizers.CorrectedMomentumSGD, optimizers.MSVAG, optimizers.MomentumSGD,
              optimizers.NesterovAG, optimizers.RMSprop, optimizers.RMSpropGraves,
              optimizers.SGD, optimizers.SMORMS3]
RULES = [optimizers.AdaDeltaRule, optimizers.AdaGradRule, optimizers.AdamRule,
         optimizers.CorrectedMomentumSGDRule, optimizers.MSVAGRule, optimizers.MomentumSGDRule,
         optimizers.NesterovAGRule, optimizers.RMSpropGravesRule, optimizers.RMSpropRule,
         optimizers.SGDRule, optimizers.SMORMS3Rule]


def _numeric(cls):
    return [name for name in inspect.signature(cls).parameters
            if name not in FLAGS and name != 'parent_hyperparam']


def _bad_values():
    """(value, error) pairs refused for every numeric hyperparameter."""
    return [('a', TypeError), (True, TypeError), (float('nan'), ValueError),
            (-0.5, ValueError)]


def _cases(classes, with_none):
    for cls in classes:
        for name in _numeric(cls):
            values = _bad_values() + ([(None, TypeError)] if with_none else [])
            for value, error in values:
                yield pytest.param(cls, name, value, error, id=f'{cls.__name__}-{name}-{value!r}')


@pytest.mark.parametrize('cls, name, value, error', list(_cases(OPTIMIZERS, True)))
def test_an_optimizer_names_a_bad_hyperparameter(cls, name, value, error):
    with pytest.raises(error) as info:
        cls(**{name: value})
    assert str(info.value) == \
        f'{cls.__name__}: {name} must be a non-negative real number; got {value!r}'



@pytest.mark.parametrize('cls, name, value, error', list(_cases(RULES, False)))
def test_a_rule_names_a_bad_hyperparameter_and_leaves_the_parent_alone(cls, name, value, error):
    parent = optimizers.Adam().hyperparam if cls is optimizers.AdamRule else None
    before = None if parent is None else parent.get_dict()
    with pytest.raises(error, match=f'^{cls.__name__}: {name} must be a non-negative real '):
        cls(parent, **{name: value})
    if parent is not None:
        assert parent.get_dict() == before


@pytest.mark.parametrize('cls', RULES)
def test_a_rule_takes_none_as_the_parent_s_value(cls):
    rule = cls(**{name: None for name in _numeric(cls)})
    for name in _numeric(cls):
        assert getattr(rule.hyperparam, name) is not None


@pytest.mark.parametrize('make', [
    lambda: optimizers.SGD(lr=0),
    lambda: optimizers.SGD(lr=np.float32(0.1)),
    lambda: optimizers.MomentumSGD(lr=1, momentum=1),
    lambda: optimizers.Adam(alpha=0.05, beta1=0, beta2=np.float64(0.7), eps=0),
    lambda: optimizers.RMSprop(0.1, alpha=1.0),
    lambda: optimizers.AdaDelta(rho=0.0, eps=1e-5),
    # Chainer accepts momenta and decay rates above 1 (its tests set default + 0.1).
    lambda: optimizers.AdaDelta(rho=1.05),
    lambda: optimizers.Adam(beta2=1.099),
])
def test_edge_values_pass(make):
    make()
