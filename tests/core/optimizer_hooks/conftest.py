"""Shared fixtures for the optimizer hook tests.

``kit`` drives one update of a tiny recording SGD (defined here, so the
tests do not depend on catena.optimizers) on a two-parameter link, with a
hook registered on the optimizer or on one update rule, and returns the
parameters before, the gradients the loss gave, the gradients the update
rule saw and the parameters and gradients after.
"""

from __future__ import annotations

import dataclasses

import numpy
import pytest

import catena
import catena.functions as F
from catena.optimizer import GradientMethod, HyperparameterProxy, UpdateRule

_TOLERANCES = {
    numpy.float16: {'rtol': 1e-2, 'atol': 2e-3},
    numpy.float32: {'rtol': 1e-5, 'atol': 1e-6},
    numpy.float64: {'rtol': 1e-12, 'atol': 1e-13},
}


class RecordingSGDRule(UpdateRule):
    """param -= lr * grad, keeping a copy of every gradient it is given."""

    def __init__(self, parent_hyperparam=None, lr=None):
        super().__init__(parent_hyperparam)
        self.set_hyperparams(lr=lr)
        self.seen = []

    def update_core_cpu(self, param):
        grad = param.grad
        if grad is None:
            return
        self.seen.append(grad.copy())
        param.array -= param.dtype.type(self.hyperparam.lr) * grad


class RecordingSGD(GradientMethod):
    lr = HyperparameterProxy('lr')

    def __init__(self, lr=0.5):
        super().__init__()
        self.set_hyperparams(lr=lr)

    def create_update_rule(self):
        return RecordingSGDRule(self.hyperparam)


class TwoParams(catena.Link):
    """``w`` (3, 4) in [-1, 1) and a small ``b`` (4,) in [-0.1, 0.1) with b[0] == 0."""

    def __init__(self, dtype, seed=0):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        b = rng.uniform(-0.1, 0.1, 4)
        b[0] = 0
        with self.init_scope():
            self.w = catena.Parameter(rng.uniform(-1, 1, (3, 4)).astype(dtype))
            self.b = catena.Parameter(b.astype(dtype))


@dataclasses.dataclass
class Step:
    model: TwoParams
    optimizer: RecordingSGD
    before: dict
    grads: dict
    seen: dict
    after: dict
    after_grads: dict


def _arrays(model):
    return {name: param.array.copy() for name, param in model.namedparams()}


class Kit:
    Rule = RecordingSGDRule
    SGD = RecordingSGD
    Model = TwoParams

    @staticmethod
    def tol(dtype):
        return _TOLERANCES[numpy.dtype(dtype).type]

    @staticmethod
    def grads_for(model, seed=1, scale=1.0):
        rng = numpy.random.default_rng(seed)
        return {name: (scale * rng.uniform(-1, 1, param.shape)).astype(param.dtype)
                for name, param in model.namedparams()}

    @staticmethod
    def lossfun(model, grads):
        """A loss whose gradient with respect to each parameter is ``grads[name]``."""
        def loss():
            terms = [F.sum(param * grads[name]) for name, param in model.namedparams()]
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            return total
        return loss

    def step(self, hook, dtype, *, on='optimizer', timing='auto', loss_scale=None,
             grads=None, seed=0, grad_scale=1.0):
        """One update with ``hook`` on the optimizer or (``on='rule'``) on ``w``'s rule."""
        model = TwoParams(dtype, seed)
        optimizer = RecordingSGD().setup(model)
        if on == 'optimizer':
            optimizer.add_hook(hook, timing=timing)
        else:
            model.w.update_rule.add_hook(hook, timing=timing)
        if loss_scale is not None:
            optimizer.set_loss_scale(loss_scale)
        before = _arrays(model)
        if grads is None:
            grads = self.grads_for(model, seed + 1, grad_scale)
        optimizer.update(self.lossfun(model, grads))
        params = dict(model.namedparams())
        for param in params.values():
            assert param.grad.dtype == dtype
        return Step(model, optimizer, before, grads,
                    seen={name: p.update_rule.seen[-1] for name, p in params.items()},
                    after=_arrays(model),
                    after_grads={name: p.grad.copy() for name, p in params.items()})


@pytest.fixture
def kit():
    return Kit()


@pytest.fixture(params=[numpy.float16, numpy.float32, numpy.float64],
                ids=['float16', 'float32', 'float64'])
def dtype(request):
    return request.param
