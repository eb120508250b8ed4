"""``floor``: rounding down, element-wise (not differentiable: no graph is built)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions import _arguments
from catena.utils import force_array
from catena.variable import Variable, as_array, as_variable


def floor(x: Any) -> Variable:
    """Elementwise floor, :math:`y_i = \\lfloor x_i \\rfloor`.

    Each element becomes the largest integer that is not greater than it.

    The result is piecewise constant, so it has no useful gradient: as in
    Chainer, it is returned as a new Variable that is not connected to the
    graph of ``x`` and does not require grad.

    Args:
        x: A Variable or array.

    Returns:
        Variable: The rounded values, with the dtype of ``x``.

    .. admonition:: Example

        >>> F.floor(np.array([-1.5, 0.2, 2.0], dtype=np.float32)).array
        array([-2.,  0.,  2.], dtype=float32)
    """
    x = as_array(_arguments.array('floor', 'x', x))
    xp = backend.get_array_module(x)
    return as_variable(force_array(xp.floor(x), x.dtype))
