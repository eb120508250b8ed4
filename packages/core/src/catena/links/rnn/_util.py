"""Helpers shared by the recurrent links: initializer resolution and state handling."""

from __future__ import annotations

from typing import Any

import numpy

from catena import initializers
from catena.functions.array.reshape import reshape
from catena.functions.array.split_axis import split_axis
from catena.variable import Variable


def sizes(who: str, in_size: Any, out_size: Any) -> tuple[Any, Any]:
    """Checks the ``(in_size, out_size)`` of a recurrent link; ``in_size`` may be None.

    Raises:
        TypeError: If a size is not an int.
        ValueError: If a size is negative.
    """
    from catena.links.connection._util import size_argument

    out = size_argument(who, 'out_size', out_size)
    return (None if in_size is None else size_argument(who, 'in_size', in_size)), out


def get_initializer(initializer: Any) -> Any:
    """Turns an ``*_init`` argument into an initializer.

    None gives :class:`~catena.initializers.LeCunNormal`; a scalar or an
    array gives a :class:`~catena.initializers.Constant`; callables pass
    through.
    """
    if initializer is None:
        return initializers.LeCunNormal()
    if numpy.isscalar(initializer) or hasattr(initializer, 'shape'):
        return initializers.Constant(initializer)
    if not callable(initializer):
        raise TypeError('an initializer must be None, a scalar, an array or a callable; '
                        f'got {type(initializer).__name__}')
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
