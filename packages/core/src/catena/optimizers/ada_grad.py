"""AdaGrad: steps scaled by the root of the accumulated squared gradient."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-08


class AdaGradRule(optimizer.UpdateRule):
    """Update rule of AdaGrad.

    With the gradient ``g`` and the state ``h`` (zeros at first), one step is::

        h += g * g
        param -= lr * g / (sqrt(h) + eps)

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the defaults of
            :class:`AdaGrad` when None).
        lr: Learning rate, or None to use the parent's.
        eps: Small value added to the denominator, or None to use the parent's.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, lr=lr, eps=eps)
        self.set_hyperparams(lr=lr, eps=eps)

    def init_state(self, param: Variable) -> None:
        """Creates the accumulated squared gradient ``h`` (zeros)."""
        self.init_zero_state(param, 'h')

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
        h = self.state['h']  # type: ignore[index]

        step = grad * grad
        h += step
        denom = xp.sqrt(h)
        denom += scalar(hp.eps)
        xp.multiply(grad, scalar(hp.lr), out=step)
        step /= denom
        array = param.array
        array -= step


class AdaGrad(optimizer.GradientMethod):
    """AdaGrad optimizer (Duchi et al., 2011).

    Each element's step is the learning rate divided by the root of the sum
    of all its squared gradients so far (see :class:`AdaGradRule`).

    Args:
        lr: Learning rate.
        eps: Small value added to the denominator for numerical stability.
    """

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, lr=lr, eps=eps)
        self.set_hyperparams(lr=lr, eps=eps)

    def create_update_rule(self) -> AdaGradRule:
        """Returns a new :class:`AdaGradRule` that falls back to this optimizer."""
        return AdaGradRule(self.hyperparam)
