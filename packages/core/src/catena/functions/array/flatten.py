"""``flatten``: an array as one dimension."""

from __future__ import annotations

from typing import Any

from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.variable import Variable


def flatten(x: Any) -> Variable:
    """Flattens ``x`` into one dimension (in C order), as a :func:`reshape`.

    Args:
        x: A Variable or array.

    Returns:
        Variable: A one-dimensional variable of ``x.size`` elements.

    .. admonition:: Example

        >>> x = np.array([[1, 2], [3, 4]], dtype=np.float32)
        >>> F.flatten(x).array
        array([1., 2., 3., 4.], dtype=float32)
    """
    try:
        size = x.size
    except AttributeError:
        _arguments.blame('flatten', x=x)
        raise
    return reshape(x, (size,))
