"""``sign``: the sign of each element (not differentiable: no graph is built)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.utils import force_array
from catena.variable import Variable, as_array, as_variable


def sign(x: Any) -> Variable:
    """Elementwise sign: -1 where ``x < 0``, 0 where ``x == 0``, 1 where ``x > 0``.

    The result is piecewise constant, so it has no useful gradient: as in
    Chainer, it is returned as a new Variable that is not connected to the
    graph of ``x`` and does not require grad.

    Args:
        x: A Variable or array.

    Returns:
        Variable: The signs, with the dtype of ``x`` (NaN stays NaN).

    .. admonition:: Example

        >>> F.sign(np.array([-2.0, 0.0, 3.0], dtype=np.float32)).array
        array([-1.,  0.,  1.], dtype=float32)
    """
    x = as_array(x)
    return as_variable(force_array(backend.get_array_module(x).sign(x)))
