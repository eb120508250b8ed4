"""Helpers shared by the connection links: initializer resolution and size arguments."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy

from catena import initializers, variable
from catena.utils import _validate


def get_initializer(initializer: Any, default: str = 'LeCunNormal', who: str = 'the link',
                    name: str = 'initialW') -> Any:
    """Turns a link's ``initialW``-style argument into an initializer.

    None gives ``initializers.<default>()``; a scalar or an array gives a
    :class:`~catena.initializers.Constant` (so that the parameter stays
    uninitialized until its shape is known); callables pass through.

    Raises:
        TypeError: For anything else, naming ``who`` and ``name``.
    """
    if initializer is None:
        return getattr(initializers, default)()
    if isinstance(initializer, (numbers.Number, numpy.generic)) and \
            not isinstance(initializer, bool) or hasattr(initializer, 'shape'):
        return initializers.Constant(initializer)
    if not callable(initializer):
        raise TypeError(f'{who}: {name} must be None, a scalar, an array or an initializer; '
                        f'got {_validate.show(initializer)}')
    return initializer


def get_bias_initializer(initial_bias: Any, who: str = 'the link',
                         name: str = 'initial_bias') -> Any:
    """Turns ``initial_bias`` into an initializer; None means zero."""
    if initial_bias is None:
        return initializers.Constant(0)
    return get_initializer(initial_bias, who=who, name=name)


def as_tuple(value: Any, nd: int, name: str, minimum: int = 1,
             who: str = 'the link') -> tuple[int, ...]:
    """Returns ``value`` (an int or ``nd`` ints) as an ``nd``-tuple of ints.

    Raises:
        TypeError: If it is not an int or a sequence of ints.
        ValueError: If it has another length or an entry below ``minimum``.
    """
    return _validate.int_tuple(who, name, value, nd, minimum)


def size_argument(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Checks a link's size argument (``in_size``, ``out_size``).

    An int must not be negative; a string, a float, a bool or None (unless
    ``optional``) is refused. A shape tuple passes unchanged, as Chainer lets
    it (a parameter of that shape).

    Raises:
        TypeError: For a string, a float, a bool or None.
        ValueError: For a negative int or a shape with a negative dimension.
    """
    if value is None and optional:
        return None
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        _validate.shape(who, name, value)
        return value
    if isinstance(value, (numbers.Integral, numpy.integer)) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f'{who}: {name} must not be negative; got {value}')
        return int(value)
    raise TypeError(f'{who}: {name} must be an int{" or None" if optional else ""}; '
                    f'got {_validate.show(value)}')


def outsize(who: str, value: Any, nd: int) -> tuple[int | None, ...]:
    """Checks a deconvolution's ``outsize``: ``nd`` entries, each a positive int or None.

    Raises:
        TypeError: If it is not a sequence, or an entry is neither an int nor None.
        ValueError: If it has another length or an entry below 1.
    """
    words = (f'{who}: outsize must be a sequence of {nd} positive ints (None for one to '
             f'compute); got {_validate.show(value)}')
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or \
            not all(v is None or _validate.is_int(v) for v in value):
        raise TypeError(words)
    if len(value) != nd or any(v is not None and v < 1 for v in value):
        raise ValueError(words)
    return tuple(None if v is None else int(v) for v in value)


def channels(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Checks a channel count: a positive int (or None with ``optional``)."""
    return _validate.integer(who, name, value, 1, optional=optional)


def as_groups(groups: Any, who: str = 'the link') -> int:
    """Validates the number of groups (a positive int)."""
    return _validate.integer(who, 'groups', groups, 1)


def initialize(who: str, name: str, param: Any, shape: Any) -> None:
    """Initializes ``param`` to ``shape``, first checking that an initial array fits.

    Args:
        who: The link named in the message.
        name: The constructor argument that gave the initializer (``initialW``).
        param: The :class:`~catena.Parameter` to initialize.
        shape: Its shape.

    Raises:
        ValueError: If the initializer is an array that does not broadcast to
            ``shape``.
    """
    if isinstance(param.initializer, initializers.Constant):
        _validate.broadcastable(who, name, param.initializer.fill_value,
                                shape if isinstance(shape, tuple) else (shape,))
    param.initialize(shape)


def parameter(who: str, name: str, initializer: Any, shape: Any = None) -> Any:
    """Returns a new :class:`~catena.Parameter`, initialized to ``shape`` unless it is None.

    An initial array that does not fit ``shape`` is refused with a
    :class:`ValueError` naming ``name`` (see :func:`initialize`).
    """
    param = variable.Parameter(initializer)
    if shape is not None:
        initialize(who, name, param, shape)
    return param


def input_shape(who: str, x: Any) -> tuple[int, ...]:
    """Returns the shape of a link's input ``x``, which shapes its parameters at the first call.

    Raises:
        TypeError: If ``x`` is not an array or a Variable (it has no shape).
    """
    shape = getattr(x, 'shape', None)
    if shape is None:
        raise TypeError(f'{who}: x must be an array or a Variable; got {_validate.show(x)}')
    return tuple(shape)


def check_channels(who: str, x: Any, nd: int, expected: int | None) -> int:
    """Returns the channel count of ``x`` after checking it is ``(n, c, *nd dims)``.

    Raises:
        ValueError: If ``x`` has another rank, or ``expected`` channels are
            set and ``x`` has another number.
    """
    shape = input_shape(who, x)
    if len(shape) != nd + 2:
        dims = ', '.join(f'd{i + 1}' for i in range(nd)) if nd > 2 else \
            ('w' if nd == 1 else 'h, w')
        raise ValueError(f'{who} takes inputs of shape (n, c, {dims}); got x.shape={shape}')
    channels = int(shape[1])
    if expected is not None and channels != expected:
        raise ValueError(f'{who} has {expected} input channels, but x.shape={shape} has '
                         f'{channels}')
    return channels


class InputCountError(TypeError, AssertionError):
    """A link called with the wrong number of inputs (Chainer asserted it)."""


class UnsupportedValueError(NotImplementedError, ValueError):
    """An argument value outside the supported choices (Chainer raised NotImplementedError)."""


class AssertedValueError(ValueError, AssertionError):
    """A bad argument value that Chainer rejected with an assertion."""


def input_count_error(who: str, inputs: tuple[Any, ...], expected: int,
                      what: str) -> InputCountError:
    """The error for a link called with ``len(inputs)`` inputs instead of ``expected``.

    It is a :class:`TypeError` and, as in Chainer, an :class:`AssertionError`.
    """
    return InputCountError(f'{who} {what} takes {expected} '
                           f'input{"s" if expected > 1 else ""}; got {len(inputs)}')


def check_initial_shape(who: str, name: str, value: Any, shape: tuple[int, ...]) -> None:
    """Checks that an initial array (not a scalar or an initializer) has ``shape``.

    Raises:
        AssertedValueError: A :class:`ValueError` (and, as in Chainer, an
            :class:`AssertionError`) for another shape.
    """
    if hasattr(value, 'shape') and not callable(value) and tuple(value.shape) != shape:
        raise AssertedValueError(f'{who}: {name} must have the shape {shape}; '
                                f'got {tuple(value.shape)}')
