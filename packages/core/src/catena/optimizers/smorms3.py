"""SMORMS3: Simon Funk's squared-mean-over-root-mean-squared step with adaptive memory."""

from __future__ import annotations

from catena import backend, optimizer
from catena.optimizers import _hyperparams
from catena.variable import Variable

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of Simon Funk's SMORMS3.

    With the gradient ``grad`` and the states ``mem`` (ones at first), ``g``
    and ``g2`` (zeros at first), one step is::

        r = 1 / (mem + 1)
        g = (1 - r) * g + r * grad
        g2 = (1 - r) * g2 + r * grad ** 2
        x = g * g / (g2 + eps)
        param -= grad * minimum(lr, x) / (sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)

    The arithmetic is done in the parameter's dtype, where the default
    ``eps`` (1e-16) is zero in float16: an element whose gradients have all
    been zero then becomes NaN, so train float16 parameters with
    ``use_fp32_update()``.

    Args:
        parent_hyperparam: The hyperparameters to fall back to (the defaults of
            :class:`SMORMS3` when None).
        lr: Learning rate, or None to use the parent's.
        eps: Small value for numerical stability, or None to use the parent's.
    """

    is_elementwise = True

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None,
                 lr: float | None = None, eps: float | None = None) -> None:
        super().__init__(parent_hyperparam or _default_hyperparam)
        _hyperparams.check(type(self).__name__, rule=True, lr=lr, eps=eps)
        self.set_hyperparams(lr=lr, eps=eps)

    def init_state(self, param: Variable) -> None:
        """Creates ``mem`` (ones), ``g`` and ``g2`` (zeros)."""
        self.init_zero_state(param, 'mem', 'g', 'g2')['mem'].fill(1)

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
        one, eps = scalar(1), scalar(hp.eps)
        state = self.state
        mem, g, g2 = state['mem'], state['g'], state['g2']  # type: ignore[index]

        rate = mem + one
        xp.reciprocal(rate, out=rate)
        keep = one - rate
        g *= keep
        weighted = rate * grad
        g += weighted
        g2 *= keep
        weighted *= grad
        g2 += weighted
        x = rate  # the buffer of r is reused for x from here on
        xp.multiply(g, g, out=x)
        xp.add(g2, eps, out=keep)
        x /= keep
        step = weighted
        xp.minimum(x, scalar(hp.lr), out=step)
        step *= grad
        xp.sqrt(g2, out=keep)
        keep += eps
        step /= keep
        array = param.array
        array -= step
        xp.subtract(one, x, out=x)
        mem *= x
        mem += one


class SMORMS3(optimizer.GradientMethod):
    """Simon Funk's SMORMS3 (http://sifter.org/~simon/journal/20150420.html).

    Like RMSprop, but the averaging window of each element shrinks when its
    gradient is consistent and the step is capped by the squared mean over
    the mean square (see :class:`SMORMS3Rule`).

    Args:
        lr: Learning rate (the largest fraction of the normalized step).
        eps: Small value for numerical stability.
    """

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        super().__init__()
        _hyperparams.check(type(self).__name__, lr=lr, eps=eps)
        self.set_hyperparams(lr=lr, eps=eps)

    def create_update_rule(self) -> SMORMS3Rule:
        """Returns a new :class:`SMORMS3Rule` that falls back to this optimizer."""
        return SMORMS3Rule(self.hyperparam)
