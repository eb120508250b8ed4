"""M-SVAG: momentum with stochastic variance-adapted step sizes."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._scratch import ScratchBuffer
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.1
_default_hyperparam.beta = 0.9
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0

_RHO_MAX = 0.9999


def variance_weight(beta: float, t: int) -> float:
    """The weight ``rho`` of the variance estimate after ``t`` steps, capped below 1.

    Public for backends whose fused updates must compute as the rule does.
    """
    if not 0 <= beta < 1:
        raise ValueError(f'MSVAG beta must be in [0, 1), got {beta!r}')
    beta_power = beta ** t
    rho = ((1 - beta) ** 2 * (1 - beta_power ** 2)
           / ((1 - beta_power) ** 2 * (1 - beta ** 2)))
    return min(rho, _RHO_MAX)


class MSVAGRule(optimizer.UpdateRule):
    """Update rule of M-SVAG, with decoupled weight decay.

    The rule keeps exponential moving averages ``m`` of the gradient and
    ``v`` of its square (states ``'m'`` and ``'v'``, zero at first). At
    step ``t`` (counted from 1)::

        m += (1 - beta) * (grad - m)
        v += (1 - beta) * (grad * grad - v)
        m_hat = m / (1 - beta ** t)
        v_hat = v / (1 - beta ** t)
        rho = min((1 - beta) ** 2 * (1 - beta ** (2 * t))
                  / ((1 - beta ** t) ** 2 * (1 - beta ** 2)), 0.9999)
        s = (v_hat - m_hat ** 2) / (1 - rho)
        factor = clip(m_hat ** 2 / (m_hat ** 2 + rho * s), 0, 1)
        param -= eta * (lr * m_hat * factor + weight_decay_rate * param)

    where ``factor`` is 0 wherever its denominator is 0 (a gradient that
    has always been zero). ``beta ** t`` is computed from the rule's update
    count :attr:`t`, so it survives saving and loading.

    See :class:`MSVAG` for the default values of the hyperparameters.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the
            defaults of :class:`MSVAG` when None).
        lr: The learning rate, or None to take the parent's.
        beta: The decay rate of both moving averages, or None to take the
            parent's.
        eta: The schedule multiplier of the whole step, or None to take the
            parent's.
        weight_decay_rate: The decoupled weight decay rate, or None to take
            the parent's.
    """

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, beta: float | None = None,
                 eta: float | None = None, weight_decay_rate: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True,
                           lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)
        self.set_hyperparams(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)
        self._work = ScratchBuffer()

    def init_state(self, param: Variable) -> None:
        """Creates the moving averages ``'m'`` and ``'v'``, zeros like the parameter."""
        self.init_zero_state(param, 'm', 'v')

    def update_core_cpu(self, param: Variable) -> None:
        """Updates the moving averages and ``param`` in place."""
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        beta = hp.beta
        t = max(self.t, 1)
        rho = variance_weight(beta, t)
        state = self.state
        m, v = state['m'], state['v']  # type: ignore[index]
        data = param.array
        scalar = data.dtype.type
        xp = backend.get_array_module(data)
        work = self._work.like(grad)

        one_minus_beta = scalar(1 - beta)
        xp.subtract(grad, m, out=work)
        work *= one_minus_beta
        m += work
        xp.multiply(grad, grad, out=work)
        work -= v
        work *= one_minus_beta
        v += work

        debias = scalar(1 / (1 - beta ** t))
        m_hat = m * debias
        factor = m_hat * m_hat
        denominator = xp.multiply(v, debias, out=work)
        denominator -= factor
        denominator /= scalar(1 - rho)
        denominator *= scalar(rho)
        denominator += factor
        never_moved = denominator == 0
        denominator[never_moved] = 1
        factor /= denominator
        xp.clip(factor, 0, 1, out=factor)
        factor[never_moved] = 0

        step = m_hat
        step *= scalar(hp.lr)
        step *= factor
        weight_decay_rate = hp.weight_decay_rate
        if weight_decay_rate != 0:
            step += xp.multiply(data, scalar(weight_decay_rate), out=work)
        step *= scalar(hp.eta)
        data -= step


class MSVAG(optimizer.GradientMethod):
    """M-SVAG optimizer.

    From Balles and Hennig, "Dissecting Adam: The Sign, Magnitude and
    Variance of Stochastic Gradients" (ICML 2018): momentum SGD whose
    per-element step is damped where the gradient's estimated variance is
    large relative to its squared mean (see :class:`MSVAGRule`). ``eta``
    scales the whole step (for schedules such as warm restarts) and
    ``weight_decay_rate`` adds weight decay decoupled from the gradient, as
    in AdamW.

    Args:
        lr: The learning rate.
        beta: The decay rate of the moving averages of the gradient and its
            square.
        eta: The schedule multiplier.
        weight_decay_rate: The decoupled weight decay rate.
    """

    lr = optimizer.HyperparameterProxy('lr')
    beta = optimizer.HyperparameterProxy('beta')
    eta = optimizer.HyperparameterProxy('eta')
    weight_decay_rate = optimizer.HyperparameterProxy('weight_decay_rate')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 beta: float = _default_hyperparam.beta,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__,
                           lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)
        self.set_hyperparams(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)

    def create_update_rule(self) -> MSVAGRule:
        """Returns a rule that falls back to this optimizer's hyperparameters."""
        return MSVAGRule(self.hyperparam)
