"""Alex Graves's RMSprop: momentum on steps normalized by the gradient's running variance."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._arith import mean_square_step, velocity_step
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.0001
_default_hyperparam.alpha = 0.95
_default_hyperparam.momentum = 0.9
_default_hyperparam.eps = 0.0001


class RMSpropGravesRule(optimizer.UpdateRule):
    """Update rule of Alex Graves's RMSprop.

    With the gradient ``grad`` and the states ``n`` (running mean square),
    ``g`` (running mean) and ``delta`` (the step), all zeros at first, one
    step is::

        n = alpha * n + (1 - alpha) * grad ** 2
        g = alpha * g + (1 - alpha) * grad
        delta = momentum * delta - lr * grad / sqrt(n - g ** 2 + eps)
        param += delta

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the defaults of
            :class:`RMSpropGraves` when None).
        lr: Learning rate, or None to use the parent's.
        alpha: Decay rate of ``n`` and ``g``, or None to use the parent's.
        momentum: Decay rate of ``delta``, or None to use the parent's.
        eps: Small value for numerical stability, or None to use the parent's.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None,
                 momentum: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True,
                           lr=lr, alpha=alpha, momentum=momentum, eps=eps)
        self.set_hyperparams(lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def init_state(self, param: Variable) -> None:
        """Creates ``n``, ``g`` and ``delta`` (zeros)."""
        self.init_zero_state(param, 'n', 'g', 'delta')

    def update_core_cpu(self, param: Variable) -> None:
        """Updates ``param`` in place (any array module)."""
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(param.array)
        hp = self.hyperparam
        scalar = param.array.dtype.type
        alpha, one_minus_alpha = scalar(hp.alpha), scalar(1 - hp.alpha)
        state = self.state
        n, g, delta = state['n'], state['g'], state['delta']  # type: ignore[index]

        scratch = mean_square_step(n, grad, alpha, one_minus_alpha)
        g *= alpha
        xp.multiply(grad, one_minus_alpha, out=scratch)
        g += scratch
        denom = g * g
        xp.subtract(n, denom, out=denom)
        denom += scalar(hp.eps)
        xp.sqrt(denom, out=denom)
        xp.multiply(grad, scalar(hp.lr), out=scratch)
        scratch /= denom
        velocity_step(delta, scalar(hp.momentum), scratch)
        array = param.array
        array += delta


class RMSpropGraves(optimizer.GradientMethod):
    """Alex Graves's RMSprop (Graves, 2013, arXiv:1308.0850).

    The gradient is divided by its running standard deviation and fed into
    a momentum step (see :class:`RMSpropGravesRule`).

    Args:
        lr: Learning rate.
        alpha: Decay rate of the running mean and mean square of the gradient.
        momentum: Decay rate of the step (momentum).
        eps: Small value for numerical stability.
    """

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    momentum = optimizer.HyperparameterProxy('momentum')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 momentum: float = _default_hyperparam.momentum,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, lr=lr, alpha=alpha, momentum=momentum, eps=eps)
        self.set_hyperparams(lr=lr, alpha=alpha, momentum=momentum, eps=eps)

    def create_update_rule(self) -> RMSpropGravesRule:
        """Returns a new :class:`RMSpropGravesRule` that falls back to this optimizer."""
        return RMSpropGravesRule(self.hyperparam)
