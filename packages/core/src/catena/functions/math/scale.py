"""``scale``: multiply by an array broadcast along axes of another."""

from __future__ import annotations

from typing import Any

from catena.function_node import _as_input_variable
from catena.functions.math._axis_broadcast import _expand_along
from catena.variable import Variable


def scale(x: Any, y: Any, axis: int = 1) -> Variable:
    """Multiplies ``x`` by ``y``, ``y`` broadcast from ``axis`` onwards.

    ``y.shape`` must equal ``x.shape[axis:axis + y.ndim]``; ``y`` is
    broadcast along all the other axes of ``x``.

    Args:
        x: A Variable or array of floating point type.
        y: The scale, a Variable or array of the dtype of ``x``.
        axis: The first axis of ``x`` that ``y``'s axes match.

    Returns:
        Variable: ``x * y`` (broadcast), of the shape of ``x``.

    .. admonition:: Example

        >>> x = np.ones((2, 3), dtype=np.float32)
        >>> y = np.array([1.0, 2.0, 3.0], dtype=np.float32)
        >>> F.scale(x, y, axis=1).array
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
    """
    y = _expand_along(x, y, axis, 'scale')
    return _as_input_variable(x) * y
