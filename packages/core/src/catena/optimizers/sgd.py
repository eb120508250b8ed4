"""Plain stochastic gradient descent."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _fused, _hyperparams
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01


class SGDRule(optimizer.UpdateRule):
    """Update rule of plain SGD: ``param -= lr * grad``.

    See :class:`SGD` for the default value of the hyperparameter.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the
            defaults of :class:`SGD` when None).
        lr: The learning rate, or None to take the parent's.
    """

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, lr=lr)
        self.set_hyperparams(lr=lr)
        self._step = ScratchBuffer()

    def update_core_cpu(self, param: Variable) -> None:
        """Moves ``param`` against its gradient, in place."""
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        data = param.array
        if _fused.sgd(data, grad, self.hyperparam.lr):
            return
        xp = backend.get_array_module(data)
        step = xp.multiply(grad, data.dtype.type(self.hyperparam.lr),
                           out=self._step.like(grad))
        data -= step


class SGD(optimizer.GradientMethod):
    """Vanilla stochastic gradient descent.

    Each step subtracts the gradient times the learning rate from every
    parameter.

    Args:
        lr: The learning rate.
    """

    lr = optimizer.HyperparameterProxy('lr')

    def __init__(self, lr: float = _default_hyperparam.lr) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, lr=lr)
        self.set_hyperparams(lr=lr)

    def create_update_rule(self) -> SGDRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return SGDRule(self.hyperparam)
