"""``fix``: rounding toward zero, element-wise (not differentiable: no graph is built)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.functions import _arguments
from catena.utils import force_array
from catena.variable import Variable, as_array, as_variable


def fix(x: Any) -> Variable:
    """Elementwise rounding toward zero.

    Each element becomes its integer part: ``fix(-1.5) == -1``, ``fix(2.7) == 2``.

    The result is piecewise constant, so it has no useful gradient: as in
    Chainer, it is returned as a new Variable that is not connected to the
    graph of ``x`` and does not require grad.

    Args:
        x: A Variable or array.

    Returns:
        Variable: The rounded values, with the dtype of ``x``.

    .. admonition:: Example

        >>> F.fix(np.array([-1.5, 0.2, 2.7], dtype=np.float32)).array
        array([-1.,  0.,  2.], dtype=float32)
    """
    x = as_array(_arguments.array('fix', 'x', x))
    xp = backend.get_array_module(x)
    return as_variable(force_array(xp.fix(x), x.dtype))
