"""RMSprop: steps scaled by a running root mean square of the gradient."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.optimizers._arith import mean_square_step
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.01
_default_hyperparam.alpha = 0.99
_default_hyperparam.eps = 1e-08
_default_hyperparam.eps_inside_sqrt = False


class RMSpropRule(optimizer.UpdateRule):
    """Update rule of RMSprop.

    With the gradient ``g`` and the state ``ms`` (zeros at first), one step
    is::

        ms = alpha * ms + (1 - alpha) * g ** 2
        param -= lr * g / (sqrt(ms) + eps)        # eps_inside_sqrt=False
        param -= lr * g / sqrt(ms + eps)          # eps_inside_sqrt=True

    The arithmetic is done in the parameter's dtype, so a nonzero ``eps``
    that rounds to zero there (1e-8 in float16) raises ``ValueError`` instead
    of dividing by zero; use a larger ``eps`` or ``use_fp32_update()``.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the defaults of
            :class:`RMSprop` when None).
        lr: Learning rate, or None to use the parent's.
        alpha: Decay rate of the mean square, or None to use the parent's.
        eps: Small value for numerical stability, or None to use the parent's.
        eps_inside_sqrt: Whether ``eps`` is added under the square root, or
            None to use the parent's.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, alpha: float | None = None,
                 eps: float | None = None, eps_inside_sqrt: bool | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, lr=lr, alpha=alpha, eps=eps)
        self.set_hyperparams(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)

    def init_state(self, param: Variable) -> None:
        """Creates the mean square ``ms`` (zeros)."""
        self.init_zero_state(param, 'ms')

    def update_core_cpu(self, param: Variable) -> None:
        """Updates ``param`` in place (any array module).

        Raises:
            ValueError: If a nonzero ``eps`` is zero in the parameter's dtype.
        """
        if param.array is None:
            return  # uninitialized: no gradient yet
        grad = param.grad
        if grad is None:
            return
        hp = self.hyperparam
        dtype = param.array.dtype
        scalar = dtype.type
        eps = scalar(hp.eps)
        if hp.eps != 0 and eps == 0:
            raise ValueError(f'eps of RMSprop is too small for {dtype.name}: {hp.eps!r} '
                             f'rounds to 0; use a larger eps or use_fp32_update()')
        xp = backend.get_array_module(param.array)
        ms = self.state['ms']  # type: ignore[index]

        step = mean_square_step(ms, grad, scalar(hp.alpha), scalar(1 - hp.alpha))
        if hp.eps_inside_sqrt:
            denom = ms + eps
            xp.sqrt(denom, out=denom)
        else:
            denom = xp.sqrt(ms)
            denom += eps
        xp.multiply(grad, scalar(hp.lr), out=step)
        step /= denom
        array = param.array
        array -= step


class RMSprop(optimizer.GradientMethod):
    """RMSprop optimizer (Tieleman and Hinton, 2012, Coursera lecture 6.5).

    Each element's step is the learning rate divided by a running root mean
    square of its gradient (see :class:`RMSpropRule`).

    Args:
        lr: Learning rate.
        alpha: Decay rate of the running mean square.
        eps: Small value for numerical stability.
        eps_inside_sqrt: When True, divide by ``sqrt(ms + eps)``; when False
            (the default), by ``sqrt(ms) + eps``. Other frameworks often use
            the former.
    """

    lr = optimizer.HyperparameterProxy('lr')
    alpha = optimizer.HyperparameterProxy('alpha')
    eps = optimizer.HyperparameterProxy('eps')
    eps_inside_sqrt = optimizer.HyperparameterProxy('eps_inside_sqrt')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 alpha: float = _default_hyperparam.alpha,
                 eps: float = _default_hyperparam.eps,
                 eps_inside_sqrt: bool = _default_hyperparam.eps_inside_sqrt) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, lr=lr, alpha=alpha, eps=eps)
        self.set_hyperparams(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)

    def create_update_rule(self) -> RMSpropRule:
        """Returns a new :class:`RMSpropRule` that falls back to this optimizer."""
        return RMSpropRule(self.hyperparam)
