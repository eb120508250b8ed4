"""Helpers shared by the recurrent links: initializer resolution and state handling."""

from __future__ import annotations

from typing import Any

import numpy

from catena import initializers
from catena.functions.array.reshape import reshape
from catena.functions.array.split_axis import split_axis
from catena.links.connection._util import size_argument
from catena.utils import _validate
from catena.variable import Variable


def sizes(who: str, in_size: Any, out_size: Any, *,
          in_optional: bool = True) -> tuple[Any, Any]:
    """Checks the ``(in_size, out_size)`` of a recurrent link.

    Args:
        who: The link named in the messages.
        in_size: The input size; None passes when ``in_optional``.
        out_size: The output size (required).
        in_optional: Whether ``in_size`` may be None (inferred at the first call).

    Raises:
        TypeError: If a size is not an int (or is a missing None).
        ValueError: If a size is negative.
    """
    out = size_argument(who, 'out_size', out_size)
    return size_argument(who, 'in_size', in_size, optional=in_optional), out


def get_initializer(initializer: Any, who: str = 'the link', name: str = 'init') -> Any:
    """Turns an ``*_init`` argument into an initializer.

    None gives :class:`~catena.initializers.LeCunNormal`; a scalar or an
    array gives a :class:`~catena.initializers.Constant`; callables pass
    through.

    Raises:
        TypeError: For anything else (a string, ...), naming ``who`` and ``name``.
    """
    if initializer is None:
        return initializers.LeCunNormal()
    if not isinstance(initializer, (str, bytes)) and (
            numpy.isscalar(initializer) or hasattr(initializer, 'shape')):
        return initializers.Constant(initializer)
    if not callable(initializer):
        raise TypeError(f'{who}: {name} must be None, a scalar, an array or an initializer; '
                        f'got {_validate.show(initializer)}')
    return initializer


def as_state(link: Any, value: Any, name: str) -> Variable:
    """Returns ``value`` (a Variable or an array) as a Variable on ``link``'s device."""
    if not isinstance(value, Variable):
        if not hasattr(value, 'shape'):
            raise TypeError(f'{type(link).__name__}: {name} must be a Variable or an array; '
                            f'got {type(value).__name__}')
        value = Variable(value)
    value.to_device(link.device)
    return value


def zeros_state(link: Any, batch: int, size: int, dtype: Any) -> Variable:
    """Returns a Variable of zeros of shape ``(batch, size)`` on ``link``'s device."""
    return Variable(link.device.send_array(numpy.zeros((batch, size), dtype=dtype)))


def split_gates(lstm_in: Any) -> list[Variable]:
    """Splits ``(B, 4n)`` gate sources, interleaved per unit, into ``a, i, f, o`` of ``(B, n)``."""
    batch, width = lstm_in.shape
    parts = split_axis(reshape(lstm_in, (batch, width // 4, 4)), 4, axis=2)
    assert isinstance(parts, tuple)
    return [reshape(part, (batch, width // 4)) for part in parts]
