"""``selu``: the scaled exponential linear unit."""

from __future__ import annotations

from typing import Any

from catena.functions.activation import _scalar
from catena.functions.activation.elu import ELU
from catena.variable import Variable

_ALPHA = 1.6732632423543772848170429916717
_SCALE = 1.0507009873554804934193349852946


def selu(x: Any, alpha: float = _ALPHA, scale: float = _SCALE) -> Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)``, element-wise.

    .. math::

        y = \\lambda \\begin{cases} x & (x \\ge 0) \\\\
            \\alpha (\\exp(x) - 1) & (x < 0) \\end{cases}

    The defaults are the self-normalizing constants of Klambauer et al. (2017),
    :math:`\\alpha \\approx 1.6733` and :math:`\\lambda \\approx 1.0507`.

    Args:
        x: A Variable or array of floating point type.
        alpha: The scale of the exponential part, :math:`\\alpha`.
        scale: The overall scale, :math:`\\lambda`.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 0.0, 2.0], dtype=np.float32)
        >>> F.selu(x).array
        array([-1.1113307,  0.       ,  2.101402 ], dtype=float32)
    """
    alpha = _scalar.real(alpha, 'alpha', 'selu')
    scale = _scalar.real(scale, 'scale', 'selu')
    return ELU(alpha).apply((x,))[0] * scale
