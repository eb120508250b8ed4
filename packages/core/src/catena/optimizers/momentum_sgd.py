"""Stochastic gradient descent with classical momentum."""

from __future__ import annotations

from typing import Any

from catena import backend, optimizer
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

# Any: Hyperparameter takes arbitrary attributes, which mypy cannot see.
_default_hyperparam: Any = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class MomentumSGDRule(optimizer.UpdateRule):
    """Update rule of momentum SGD.

    With the velocity ``v`` (state ``'v'``, zero at first), a step is::

        v = momentum * v - lr * grad
        param += v

    See :class:`MomentumSGD` for the default values of the hyperparameters.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the
            defaults of :class:`MomentumSGD` when None).
        lr: The learning rate, or None to take the parent's.
        momentum: The decay rate of the velocity, or None to take the parent's.
    """

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, momentum: float | None = None) -> None:
        super().__init__(_default_hyperparam if parent_hyperparam is None
                         else parent_hyperparam)
        hyperparam: Any = self.hyperparam
        if lr is not None:
            hyperparam.lr = lr
        if momentum is not None:
            hyperparam.momentum = momentum
        self._step = ScratchBuffer()

    def init_state(self, param: Variable) -> None:
        """Creates the velocity ``'v'``, zeros like the parameter."""
        xp = backend.get_array_module(param.array)
        self.state['v'] = xp.zeros_like(param.array)  # type: ignore[index]

    def update_core_cpu(self, param: Variable) -> None:
        """Updates the velocity and ``param`` in place."""
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        v = self.state['v']  # type: ignore[index]
        data = param.array
        scalar = data.dtype.type
        xp = backend.get_array_module(data)
        step = xp.multiply(grad, scalar(hp.lr), out=self._step.like(grad))
        v *= scalar(hp.momentum)
        v -= step
        data += v


class MomentumSGD(optimizer.GradientMethod):
    """Momentum SGD optimizer.

    Every parameter keeps a velocity that decays by ``momentum`` each step
    and accumulates the negative gradient times ``lr``; the parameter moves
    by its velocity (see :class:`MomentumSGDRule`).

    Args:
        lr: The learning rate.
        momentum: The decay rate of the velocity.
    """

    lr = optimizer.HyperparameterProxy('lr')
    momentum = optimizer.HyperparameterProxy('momentum')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 momentum: float = _default_hyperparam.momentum) -> None:
        super().__init__()
        hyperparam: Any = self.hyperparam
        hyperparam.lr = lr
        hyperparam.momentum = momentum

    def create_update_rule(self) -> MomentumSGDRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return MomentumSGDRule(self.hyperparam)
