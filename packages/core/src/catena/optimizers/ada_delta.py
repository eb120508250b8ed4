"""AdaDelta: Zeiler's step sizes from running averages of squared gradients and steps."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._arith import mean_square_step
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.rho = 0.95
_default_hyperparam.eps = 1e-06


class AdaDeltaRule(optimizer.UpdateRule):
    """Update rule of Zeiler's ADADELTA.

    With the gradient ``g`` and the states ``msg`` (mean squared gradient)
    and ``msdx`` (mean squared step), both zeros at first, one step is::

        msg = rho * msg + (1 - rho) * g ** 2
        dx = sqrt((msdx + eps) / (msg + eps)) * g
        msdx = rho * msdx + (1 - rho) * dx ** 2
        param -= dx

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the defaults of
            :class:`AdaDelta` when None).
        rho: Decay rate of both running averages, or None to use the parent's.
        eps: Small value for numerical stability, or None to use the parent's.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 rho: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, rho=rho, eps=eps)
        self.set_hyperparams(rho=rho, eps=eps)

    def init_state(self, param: Variable) -> None:
        """Creates the running averages ``msg`` and ``msdx`` (zeros)."""
        self.init_zero_state(param, 'msg', 'msdx')

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
        rho, one_minus_rho, eps = scalar(hp.rho), scalar(1 - hp.rho), scalar(hp.eps)
        msg, msdx = self.state['msg'], self.state['msdx']  # type: ignore[index]

        scratch = mean_square_step(msg, grad, rho, one_minus_rho)
        dx = msdx + eps
        xp.add(msg, eps, out=scratch)
        dx /= scratch
        xp.sqrt(dx, out=dx)
        dx *= grad
        mean_square_step(msdx, dx, rho, one_minus_rho, out=scratch)
        array = param.array
        array -= dx


class AdaDelta(optimizer.GradientMethod):
    """Zeiler's ADADELTA (Zeiler, 2012, arXiv:1212.5701).

    It needs no learning rate: each element's step is its gradient scaled by
    the ratio of the root mean squared past steps to the root mean squared
    gradient (see :class:`AdaDeltaRule`).

    Args:
        rho: Decay rate of the running averages of squared gradients and steps.
        eps: Small value for numerical stability.
    """

    rho = optimizer.HyperparameterProxy('rho')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, rho: float = _default_hyperparam.rho,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, rho=rho, eps=eps)
        self.set_hyperparams(rho=rho, eps=eps)

    def create_update_rule(self) -> AdaDeltaRule:
        """Returns a new :class:`AdaDeltaRule` that falls back to this optimizer."""
        return AdaDeltaRule(self.hyperparam)
