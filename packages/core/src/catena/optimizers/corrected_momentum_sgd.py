"""Momentum SGD whose velocity does not depend on the learning rate."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._arith import velocity_step
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class CorrectedMomentumSGDRule(optimizer.UpdateRule):
    """Update rule of momentum SGD with the momentum correction.

    The velocity ``v`` (state ``'v'``, zero at first) accumulates raw
    gradients and the learning rate scales only the step::

        v = momentum * v - grad
        param += lr * v

    Changing ``lr`` during training therefore takes effect at once, without
    the velocity remembering the old rate (the correction of Goyal et al.,
    "Accurate, Large Minibatch SGD", section 3).

    See :class:`CorrectedMomentumSGD` for the default values of the
    hyperparameters.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the
            defaults of :class:`CorrectedMomentumSGD` when None).
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
        scalar = data.dtype.type
        xp = backend.get_array_module(data)
        velocity_step(v, scalar(hp.momentum), grad)
        data += xp.multiply(v, scalar(hp.lr), out=self._step.like(v))


class CorrectedMomentumSGD(optimizer.GradientMethod):
    """Momentum SGD with the momentum correction of Goyal et al.

    The velocity is kept in gradient units and multiplied by the learning
    rate when it is applied (see :class:`CorrectedMomentumSGDRule`), so that
    a learning-rate schedule acts on the very next step.

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

    def create_update_rule(self) -> CorrectedMomentumSGDRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return CorrectedMomentumSGDRule(self.hyperparam)
