"""``gaussian``: a sample of a normal distribution, differentiable in its parameters."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.math.exponential import exp
from catena.utils import force_array, type_check
from catena.variable import Variable, as_array


class Gaussian(FunctionNode):
    """``mean + exp(ln_var / 2) * eps`` with ``eps`` drawn from the standard normal.

    Args:
        eps: The standard-normal noise to use instead of drawing it, or None.
    """

    def __init__(self, eps: Any = None) -> None:
        self.eps = None if eps is None else as_array(eps)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('mean', 'ln_var'))
        mean_type, ln_var_type = in_types
        type_check.expect(
            mean_type.dtype.kind == 'f',
            mean_type.dtype == ln_var_type.dtype,
            mean_type.shape == ln_var_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        eps = self.eps
        if eps is None:
            eps = xp.random.standard_normal(ln_var.shape).astype(mean.dtype, copy=False)
        else:
            if _arguments.array('gaussian', 'eps', eps).shape != mean.shape:
                raise ValueError(f'gaussian: eps must have the shape of mean {mean.shape}; '
                                 f'got {eps.shape}')
            eps = eps.astype(mean.dtype, copy=False)
        self.eps = eps
        y = force_array(ln_var * mean.dtype.type(0.5))
        xp.exp(y, out=y)
        y *= eps
        y += mean
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        ln_var, = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for index in indexes:
            if index == 0:
                ret.append(gy)
            else:
                # d/d ln_var of exp(ln_var / 2) * eps is half of it.
                ret.append(gy * (exp(ln_var * 0.5) * self.eps) * 0.5)
        return tuple(ret)


def gaussian(mean: Any, ln_var: Any, *, eps: Any = None,
             return_eps: bool = False) -> Variable | tuple[Variable, Any]:
    """Draws a sample of :math:`N(\\mu, \\sigma^2)` by reparameterization.

    Returns :math:`\\mu + e^{\\ln\\sigma^2 / 2} \\epsilon` with
    :math:`\\epsilon` from the standard normal, so that gradients flow to
    both the mean and the log variance. It samples in training and in test
    mode alike. The draws come from the array module of ``mean``
    (``numpy.random`` on the CPU).

    Args:
        mean: A Variable or array of floating point type: :math:`\\mu`.
        ln_var: A Variable or array of the shape and dtype of ``mean``: the
            log variance :math:`\\ln\\sigma^2`.
        eps: The noise :math:`\\epsilon` to use instead of drawing it (an
            array of the shape of ``mean``).
        return_eps: Also return the noise used.

    Returns:
        Variable or tuple: The sample, and :math:`\\epsilon` with
        ``return_eps``.

    .. admonition:: Example

        >>> mean = np.zeros(3, dtype=np.float32)
        >>> ln_var = np.full(3, np.log(4.0), dtype=np.float32)  # sigma = 2
        >>> F.gaussian(mean, ln_var, eps=np.array([1, -1, .5], dtype=np.float32)).array
        array([ 2., -2.,  1.], dtype=float32)
    """
    func = Gaussian(eps)
    y, = func.apply((mean, ln_var))
    if return_eps:
        return y, func.eps
    return y
