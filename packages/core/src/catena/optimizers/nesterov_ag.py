"""Nesterov's accelerated gradient, as a velocity-based update."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._arith import velocity_step
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.momentum = 0.9


class NesterovAGRule(optimizer.UpdateRule):
    """Update rule of Nesterov's accelerated gradient.

    With the velocity ``v`` (state ``'v'``, zero at first), a step is::

        v = momentum * v - lr * grad
        param += momentum * momentum * v - (1 + momentum) * lr * grad

    where the second line uses the velocity just computed, as Chainer does.
    (The textbook reformulation of Sutskever et al. uses the previous
    velocity there instead; Chainer's variant is kept so that training runs
    and saved states carry over unchanged.)

    See :class:`NesterovAG` for the default values of the hyperparameters.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the
            defaults of :class:`NesterovAG` when None).
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
        lr, momentum = hp.lr, hp.momentum
        v = self.state['v']  # type: ignore[index]
        data = param.array
        scalar = data.dtype.type
        xp = backend.get_array_module(data)
        step = self._step.like(grad)
        xp.multiply(grad, scalar(lr), out=step)
        velocity_step(v, scalar(momentum), step)
        data += xp.multiply(v, scalar(momentum * momentum), out=step)
        data -= xp.multiply(grad, scalar((1 + momentum) * lr), out=step)


class NesterovAG(optimizer.GradientMethod):
    """Nesterov's accelerated gradient.

    Momentum SGD that applies the velocity's look-ahead through a linear
    combination of the velocity and the gradient (see
    :class:`NesterovAGRule`; Sutskever et al., "On the importance of
    initialization and momentum in deep learning", and
    https://arxiv.org/abs/1212.0901).

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

    def create_update_rule(self) -> NesterovAGRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return NesterovAGRule(self.hyperparam)
