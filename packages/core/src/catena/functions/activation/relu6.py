"""``relu6``: the rectified linear unit clipped at 6."""

from __future__ import annotations

from typing import Any

from catena.functions.activation.clipped_relu import ClippedReLU
from catena.variable import Variable


def relu6(x: Any) -> Variable:
    """Rectifier clipped at 6, :math:`y = \\min(\\max(0, x), 6)`, element-wise.

    It is :func:`clipped_relu` with ``z=6``.

    Args:
        x: A Variable or array of floating point type.

    Returns:
        Variable: An array of the shape and dtype of ``x``.

    .. admonition:: Example

        >>> x = np.array([-1.0, 3.0, 8.0], dtype=np.float32)
        >>> F.relu6(x).array
        array([0., 3., 6.], dtype=float32)
    """
    return ClippedReLU(6.0).apply((x,))[0]
