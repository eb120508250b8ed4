"""Adam and its variants: AdamW, AMSGrad, AdaBound and AMSBound.

All five share one update rule, :class:`AdamRule`; the variants are
:class:`Adam` with some of its switches (``amsgrad``, ``adabound``) fixed.
"""

from __future__ import annotations

import math
import warnings

import numpy

from catena import backend
from catena.optimizer import GradientMethod, Hyperparameter, HyperparameterProxy, UpdateRule
from catena.optimizers import _fused, _hyperparams
from catena.variable import Variable

_default_hyperparam = Hyperparameter()
_default_hyperparam.alpha = 0.001
_default_hyperparam.beta1 = 0.9
_default_hyperparam.beta2 = 0.999
_default_hyperparam.eps = 1e-8
_default_hyperparam.eta = 1.0
_default_hyperparam.weight_decay_rate = 0
_default_hyperparam.amsgrad = False
_default_hyperparam.adabound = False
_default_hyperparam.final_lr = 0.1
_default_hyperparam.gamma = 1e-3


class _BiasCorrectedAlpha:
    """``alpha_t`` and its deprecated alias ``lr``, for Adam's rule and optimizer alike."""

    hyperparam: Hyperparameter
    t: int

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size ``alpha * sqrt(1 - beta2**t) / (1 - beta1**t)``."""
        t = self.t
        if t == 0:
            raise RuntimeError('the learning rate of Adam is not defined before the first '
                               'update (t == 0)')
        hp = self.hyperparam
        return hp.alpha * math.sqrt(1.0 - hp.beta2 ** t) / (1.0 - hp.beta1 ** t)

    @property
    def lr(self) -> float:
        """Deprecated alias of :attr:`alpha_t` (what ``observe_lr`` reports)."""
        name = type(self).__name__
        warnings.warn(f'{name}.lr is deprecated; use {name}.alpha_t', DeprecationWarning,
                      stacklevel=2)
        return self.alpha_t


def work_dtype(dtype: numpy.dtype) -> numpy.dtype:
    """The dtype Adam's step is computed in: float32 for float16 parameters, else ``dtype``.

    Public for backends whose fused updates must compute as the rule does.
    """
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


class AdamRule(_BiasCorrectedAlpha, UpdateRule):
    """The update rule of Adam and its variants for one parameter.

    With gradient ``g``, at the rule's update count ``t``::

        m += (1 - beta1) * (g - m)
        v += (1 - beta2) * (g * g - v)
        vhat = maximum(vhat, v)        # amsgrad; otherwise vhat is v
        step = alpha_t / (sqrt(vhat) + eps)
        step = clip(step, lower, upper)  # adabound
        param -= eta * (step * m + weight_decay_rate * param)

    where ``alpha_t`` is :attr:`alpha_t` and ``lower``, ``upper`` are
    :attr:`bounds`. Float16 parameters are stepped in float32 arithmetic
    (their state stays float16). The state arrays are ``'m'``, ``'v'``
    and, with ``amsgrad``, ``'vhat'``.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (default:
            Adam's defaults).
        alpha: Coefficient of the learning rate.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value added to the denominator for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate.
        amsgrad: Whether to use the AMSGrad variant.
        adabound: Whether to use the AdaBound variant.
        final_lr: The learning rate AdaBound's bounds converge to.
        gamma: How fast AdaBound's bounds converge.

    Attributes:
        initial_alpha (float | None): ``alpha`` when the rule was created (or,
            if ``adabound`` was not on then, at its first AdaBound update);
            :attr:`bounds` scales ``final_lr`` by ``alpha / initial_alpha``.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: Hyperparameter | None = None,
                 alpha: float | None = None, beta1: float | None = None,
                 beta2: float | None = None, eps: float | None = None,
                 eta: float | None = None, weight_decay_rate: float | None = None,
                 amsgrad: bool | None = None, adabound: bool | None = None,
                 final_lr: float | None = None, gamma: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True,
                           alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                           weight_decay_rate=weight_decay_rate, final_lr=final_lr, gamma=gamma)
        self.set_hyperparams(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                             weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                             adabound=adabound, final_lr=final_lr, gamma=gamma)
        self.initial_alpha: float | None = (
            self.hyperparam.alpha if self.hyperparam.adabound else None)

    def init_state(self, param: Variable) -> None:
        """Creates ``m``, ``v`` and (with ``amsgrad``) ``vhat``, zero-filled like ``param``."""
        self.init_zero_state(param, 'm', 'v')
        if self.hyperparam.amsgrad:
            self.init_zero_state(param, 'vhat')

    def update_core_cpu(self, param: Variable) -> None:
        """Applies one Adam step to ``param`` in place (any array module)."""
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        data = param.array
        state = self._state
        assert state is not None
        xp = backend.get_array_module(data)
        work = work_dtype(data.dtype)
        scalar = work.type
        eps = scalar(hp.eps)
        if eps == 0 and hp.eps != 0:
            raise ValueError(f'eps of Adam ({hp.eps}) is too small for {work.name}: it rounds '
                             'to 0')
        m = state['m']
        v = state['v']
        if (not hp.amsgrad and not hp.adabound and work == data.dtype
                and _fused.adam(data, m, v, grad, beta1=hp.beta1, beta2=hp.beta2,
                                alpha_t=self.alpha_t, eps=hp.eps, eta=hp.eta,
                                weight_decay_rate=hp.weight_decay_rate)):
            return

        # One work buffer serves every intermediate.
        buf = xp.subtract(grad, m, dtype=work)
        buf *= scalar(1.0 - hp.beta1)
        m += buf
        xp.multiply(grad, grad, out=buf, dtype=work)
        buf -= v
        buf *= scalar(1.0 - hp.beta2)
        v += buf
        if hp.amsgrad:
            vhat = state.get('vhat')
            if vhat is None:
                # amsgrad was switched on after the state was created.
                vhat = state['vhat'] = v.copy()
            else:
                xp.maximum(vhat, v, out=vhat)
            v = vhat

        xp.sqrt(v, out=buf, dtype=work)
        buf += eps
        xp.divide(scalar(self.alpha_t), buf, out=buf)
        if hp.adabound:
            if self.initial_alpha is None:
                self.initial_alpha = hp.alpha
            lower, upper = self.bounds
            xp.clip(buf, scalar(lower), scalar(upper), out=buf)
        buf *= m
        eta = hp.eta
        if eta != 1:
            buf *= scalar(eta)
        decay = hp.weight_decay_rate
        if decay != 0:
            data *= data.dtype.type(1.0 - eta * decay)
        data -= buf

    @property
    def bounds(self) -> tuple[float, float]:
        """AdaBound's ``(lower, upper)`` limits of the step size at update ``t``.

        ``final_lr`` is scaled by ``alpha / initial_alpha``, so schedules that
        change ``alpha`` move the bounds too.
        """
        if self.t == 0:
            raise RuntimeError('the bounds of AdaBound are not defined before the first '
                               'update (t == 0)')
        hp = self.hyperparam
        initial_alpha = hp.alpha if self.initial_alpha is None else self.initial_alpha
        final_lr = hp.final_lr * hp.alpha / initial_alpha
        lower = final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1.0))
        upper = final_lr * (1.0 + 1.0 / (hp.gamma * self.t))
        return lower, upper


class Adam(_BiasCorrectedAlpha, GradientMethod):
    """Adam, with optional decoupled weight decay, AMSGrad and AdaBound.

    With the defaults ``eta=1`` and ``weight_decay_rate=0`` it is plain Adam
    (Kingma and Ba, https://arxiv.org/abs/1412.6980). ``weight_decay_rate``
    adds weight decay decoupled from the adaptive step (AdamW),
    ``amsgrad=True`` steps with the running maximum of the second moment
    (AMSGrad) and ``adabound=True`` clips the step size between bounds that
    converge to ``final_lr`` (AdaBound; with both, AMSBound). See
    :class:`AdamRule` for the formula.

    Args:
        alpha: Coefficient of the learning rate.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value added to the denominator for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate.
        amsgrad: Whether to use the AMSGrad variant.
        adabound: Whether to use the AdaBound variant.
        final_lr: The learning rate AdaBound's bounds converge to.
        gamma: How fast AdaBound's bounds converge.
    """

    alpha = HyperparameterProxy('alpha')
    beta1 = HyperparameterProxy('beta1')
    beta2 = HyperparameterProxy('beta2')
    eps = HyperparameterProxy('eps')
    eta = HyperparameterProxy('eta')
    weight_decay_rate = HyperparameterProxy('weight_decay_rate')
    amsgrad = HyperparameterProxy('amsgrad')
    adabound = HyperparameterProxy('adabound')
    final_lr = HyperparameterProxy('final_lr')
    gamma = HyperparameterProxy('gamma')

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate,
                 amsgrad: bool = _default_hyperparam.amsgrad,
                 adabound: bool = _default_hyperparam.adabound,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__,
                           alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                           weight_decay_rate=weight_decay_rate, final_lr=final_lr, gamma=gamma)
        self.set_hyperparams(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                             weight_decay_rate=weight_decay_rate, amsgrad=amsgrad,
                             adabound=adabound, final_lr=final_lr, gamma=gamma)

    def create_update_rule(self) -> AdamRule:
        """Returns a new :class:`AdamRule` falling back to this optimizer's hyperparameters."""
        return AdamRule(self.hyperparam)


class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay_rate``).

    See Loshchilov and Hutter, https://arxiv.org/abs/1711.05101. It is
    :class:`Adam` with ``amsgrad`` and ``adabound`` off.

    Args:
        alpha: Coefficient of the learning rate.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value added to the denominator for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
        weight_decay_rate: Decoupled weight decay rate.
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta,
                 weight_decay_rate: float = _default_hyperparam.weight_decay_rate) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate)


class AMSGrad(Adam):
    """Adam stepping with the running maximum of the second moment.

    See Reddi et al., https://openreview.net/forum?id=ryQu7f-RZ. It is
    :class:`Adam` with ``amsgrad=True``.

    Args:
        alpha: Coefficient of the learning rate.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        eps: Small value added to the denominator for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
    """

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=True)


class _BoundedAdam(Adam):
    """The constructor AdaBound and AMSBound share; ``_amsgrad`` tells them apart."""

    _amsgrad = False

    def __init__(self, alpha: float = _default_hyperparam.alpha,
                 beta1: float = _default_hyperparam.beta1,
                 beta2: float = _default_hyperparam.beta2,
                 final_lr: float = _default_hyperparam.final_lr,
                 gamma: float = _default_hyperparam.gamma,
                 eps: float = _default_hyperparam.eps,
                 eta: float = _default_hyperparam.eta) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         amsgrad=self._amsgrad, adabound=True, final_lr=final_lr, gamma=gamma)


class AdaBound(_BoundedAdam):
    """Adam whose step size is clipped between bounds converging to ``final_lr``.

    See Luo et al., https://openreview.net/forum?id=Bkg3g2R9FX. It is
    :class:`Adam` with ``adabound=True``.

    Args:
        alpha: Coefficient of the learning rate.
        beta1: Exponential decay rate of the first moment.
        beta2: Exponential decay rate of the second moment.
        final_lr: The learning rate the bounds converge to.
        gamma: How fast the bounds converge.
        eps: Small value added to the denominator for numerical stability.
        eta: Schedule multiplier of the whole step (e.g. for warm restarts).
    """


class AMSBound(_BoundedAdam):
    """AdaBound with AMSGrad's running maximum of the second moment.

    See Luo et al., https://openreview.net/forum?id=Bkg3g2R9FX. It is
    :class:`Adam` with ``amsgrad=True`` and ``adabound=True``, and takes the
    arguments of :class:`AdaBound`.
    """

    _amsgrad = True
