"""Private argument checks of the structured and sampled losses.

CTC, the linear-chain CRF, BlackOut and negative sampling take several
arrays whose shapes depend on each other. A mismatch raises
:class:`~catena.utils.type_check.InvalidType` whose ``Actual`` line gives the
shape and dtype of every array involved; labels outside their range raise a
ValueError with the offending value and the shapes.
"""

from __future__ import annotations

from typing import Any

from catena.functions.loss._argcheck import array_of, check_reduce
from catena.utils import type_check

__all__ = ['array_of', 'check_range', 'check_reduce', 'describe', 'fail', 'info']


def describe(name: str, value: Any) -> str:
    """``'name.shape=(...), name.dtype=...'`` for an array, Variable or type_check input."""
    value = type_check.eval(array_of(value))
    return f'{name}.shape={tuple(value.shape)}, {name}.dtype={value.dtype}'


def fail(function: str | None, expect: str, **named: Any) -> type_check.InvalidType:
    """An InvalidType whose Actual line describes every array in ``named``.

    Args:
        function: The public function's name for the message header, or None
            inside ``check_type_forward`` (``FunctionNode.apply`` adds it).
        expect: The condition that does not hold.
        named: The arrays to describe, by argument name.
    """
    actual = '; '.join(describe(name, value) for name, value in named.items())
    if function is None:
        return type_check.InvalidType(expect, actual)
    return type_check.InvalidType(
        expect, actual, f'Invalid operation is performed in: {function} (Forward)\n\n'
                        f'Expect: {expect}\nActual: {actual}\n')


def info(value: Any) -> Any:
    """The array (light mode) or TypeInfo (full mode) behind a type_check input."""
    return type_check.eval(array_of(value))


def check_range(function: str, name: str, labels: Any, high: int, context: str,
                ignore_label: int | None = None) -> None:
    """Raises a ValueError unless every label lies in ``[0, high)`` or is ``ignore_label``.

    Args:
        function: The public function's name.
        name: The labels' argument name.
        labels: An integer array (a Variable's array is used).
        high: The number of classes.
        context: Where ``high`` comes from, e.g. ``'W.shape=(5, 3)'``.
        ignore_label: A value that is allowed besides the range.
    """
    labels = array_of(labels)
    if labels.size == 0:
        return
    low_seen = int(labels.min())
    high_seen = int(labels.max())
    if 0 <= low_seen and high_seen < high:
        return
    bad = (labels < 0) | (labels >= high)
    if ignore_label is not None:
        bad &= labels != ignore_label
    if not bool(bad.any()):
        return
    value = int(labels[bad].ravel()[0])
    allowed = f'[0, {high})' if ignore_label is None else f'[0, {high}) or {ignore_label}'
    raise ValueError(f'{function}: every element of {name} must lie in {allowed} ({context}); '
                     f'got {value} ({name}.shape={tuple(labels.shape)})')
