"""``cast``: convert a variable to another dtype."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable, as_variable


def _dtype(typ: Any) -> numpy.dtype:
    try:
        return numpy.dtype(typ)
    except TypeError:
        raise TypeError(f'typ must be a NumPy dtype, a type or a type code such as '
                        f"'float32'; got {typ!r}") from None


class Cast(FunctionNode):
    """Casts an array to a dtype; the gradient is cast back to the input's dtype."""

    def __init__(self, typ: Any) -> None:
        self.type = _dtype(typ)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_type = x.dtype
        # No copy when the dtype does not change: the output shares x's data.
        return x.astype(self.type, copy=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        if self._in_type.kind != 'f':
            return None,
        return cast(grad_outputs[0], self._in_type),


def cast(x: Any, typ: Any) -> Variable:
    """Casts ``x`` to the dtype ``typ``.

    When ``x`` already has that dtype the output holds ``x``'s array itself;
    with backprop disabled ``x`` is then returned as a Variable directly.
    The gradient is cast back to the dtype of ``x`` (integer inputs get none).

    Args:
        x: A Variable or array.
        typ: The target dtype: a :class:`numpy.dtype`, a type such as
            :class:`numpy.float16`, or a type code such as ``'float16'``.

    Returns:
        Variable: A variable of dtype ``typ``.

    .. admonition:: Example

        >>> x = np.arange(3, dtype=np.float64)
        >>> F.cast(x, np.float32).dtype
        dtype('float32')
        >>> F.cast(x, 'float16').dtype
        dtype('float16')
    """
    dtype = _dtype(typ)
    if x.dtype == dtype and not config.enable_backprop:
        return as_variable(x)
    return Cast(dtype).apply((x,))[0]
