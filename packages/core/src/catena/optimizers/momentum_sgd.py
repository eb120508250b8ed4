"""Stochastic gradient descent with classical momentum."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _fused, _hyperparams
from catena.optimizers._arith import velocity_step
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
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
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, lr=lr, momentum=momentum)
        self.set_hyperparams(lr=lr, momentum=momentum)
        self._step = ScratchBuffer()

    def init_state(self, param: Variable) -> None:
        """Creates the velocity ``'v'``, zeros like the parameter."""
        self.init_zero_state(param, 'v')

    def update_core_cpu(self, param: Variable) -> None:
        """Updates the velocity and ``param`` in place."""
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        v = self.state['v']  # type: ignore[index]
        data = param.array
        if _fused.momentum_sgd(data, v, grad, hp.lr, hp.momentum):
            return
        scalar = data.dtype.type
        xp = backend.get_array_module(data)
        step = xp.multiply(grad, scalar(hp.lr), out=self._step.like(grad))
        velocity_step(v, scalar(hp.momentum), step)
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
        _hyperparams.check(type(self).__name__, lr=lr, momentum=momentum)
        self.set_hyperparams(lr=lr, momentum=momentum)

    def create_update_rule(self) -> MomentumSGDRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return MomentumSGDRule(self.hyperparam)
