"""AdaGrad: steps scaled by the root of the accumulated squared gradient."""

from __future__ import annotations

from typing import Any, cast

from catena import backend, optimizer
from catena.variable import Variable

# Typed Any: a Hyperparameter takes any attribute, which mypy cannot see.
_default_hyperparam: Any = optimizer.Hyperparameter()
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
        super().__init__(_default_hyperparam if parent_hyperparam is None
                         else parent_hyperparam)
        hyperparam: Any = self.hyperparam
        if lr is not None:
            hyperparam.lr = lr
        if eps is not None:
            hyperparam.eps = eps

    def init_state(self, param: Variable) -> None:
        """Creates the accumulated squared gradient ``h`` (zeros)."""
        xp = backend.get_array_module(param.array)
        cast('dict[str, Any]', self.state)['h'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Variable) -> None:
        """Updates ``param`` in place (any array module)."""
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(param.array)
        hp = self.hyperparam
        scalar = param.array.dtype.type
        h = cast('dict[str, Any]', self.state)['h']

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
        hyperparam: Any = self.hyperparam
        hyperparam.lr = lr
        hyperparam.eps = eps

    def create_update_rule(self) -> AdaGradRule:
        """Returns a new :class:`AdaGradRule` that falls back to this optimizer."""
        return AdaGradRule(self.hyperparam)
