"""Errors that name a function's array argument when it is not an array.

A wrapper that reads ``x.shape`` (or ``ndim``, ``size``, ``dtype``) before
:meth:`FunctionNode.apply` must not fail with an AttributeError from
inside when ``x`` is None, a list or a string. Two ways, by cost:

- On a hot path (``reshape``, ``convolution_nd``, pooling ...) the read
  sits in ``try``, and ``except AttributeError`` calls :func:`blame`, which
  raises ``reshape: x must be a Variable or an array; got None`` if an
  argument is not an array and otherwise returns (the caller re-raises).
  A ``try`` costs nothing when no exception is raised.
- Elsewhere :func:`array` checks an argument up front (two class
  comparisons for a Variable or a NumPy array).

Inputs that only reach ``apply`` need neither: ``apply`` names them itself
(:func:`catena.utils.type_check.non_array_input`).
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends import _registry
from catena.utils._validate import wrong_kind
from catena.variable import Variable

_ndarray = numpy.ndarray


def array(who: str, name: str, value: Any, *, optional: bool = False) -> Any:
    """Returns ``value`` if it is a Variable or an array of a registered device.

    Args:
        who: The function named in the message, e.g. ``'reshape'``.
        name: The argument's name, e.g. ``'x'``.
        value: What was given.
        optional: If True, None passes (and is returned).

    Raises:
        TypeError: ``{who}: {name} must be a Variable or an array; got ...``
            if ``value`` is neither (None, a list, a string, a Python number).
    """
    cls = value.__class__
    if cls is Variable or cls is _ndarray:
        return value
    if value is None and optional or _is_array(value):
        return value
    raise _error(who, name, value, optional)


def blame(who: str, *, optional: tuple[str, ...] = (), **named: Any) -> None:
    """Raises a TypeError for the first of ``named`` that is not a Variable or an array.

    Call it from ``except AttributeError`` around the code that read the
    arguments, then re-raise: it returns when every argument is an array
    (the AttributeError came from elsewhere).

    Args:
        who: The function named in the message.
        optional: The names of ``named`` that may be None.
        named: The arguments, by name.

    Raises:
        TypeError: ``{who}: {name} must be a Variable or an array; got ...``.
    """
    for name, value in named.items():
        if not (value is None and name in optional or _is_array(value)):
            raise _error(who, name, value, name in optional) from None


def ndim(who: str, name: str, value: Any) -> int:
    """Returns the number of axes of ``value``, naming it when it is not an array.

    Raises:
        TypeError: ``{who}: {name} must be a Variable or an array; got ...``.
    """
    try:
        return len(value.shape)
    except AttributeError:
        blame(who, **{name: value})
        raise


def has_shape(who: str, x: Any, shape: Any) -> bool:
    """Whether the array ``x`` already has ``shape`` (a sequence of ints).

    Raises:
        TypeError: Naming ``x`` if it is not an array, or ``shape`` if it is
            not a sequence.
    """
    try:
        return bool(x.shape == tuple(shape))
    except AttributeError:
        blame(who, x=x)
        raise
    except TypeError:
        raise wrong_kind(who, 'shape', 'a sequence of ints', shape) from None


def _is_array(value: Any) -> bool:
    # A NumPy scalar passes: some functions take one, as Chainer's did (F.ceil).
    if isinstance(value, (Variable, _ndarray, numpy.generic)):
        return True
    return _registry.device_type_of(value) is not None


def _error(who: str, name: str, value: Any, optional: bool) -> TypeError:
    expected = 'a Variable or an array' + (' or None' if optional else '')
    return wrong_kind(who, name, expected, value)
