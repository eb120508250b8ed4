"""Private argument checks shared by the loss functions.

The type checks here raise :class:`~catena.utils.type_check.InvalidType` with
both operands' shapes and dtypes in the message, in light and in full mode
alike (so the message does not depend on the mode). The value checks raise a
ValueError naming the labels' and the scores' shapes.
"""

from __future__ import annotations

from typing import Any

from catena.utils import type_check
from catena.variable import Variable

REDUCE_MEAN_NO = ('mean', 'no')
REDUCE_SUM_NO = ('sum', 'no')


def _info(in_type: Any) -> tuple[tuple[int, ...], Any]:
    """The shape and dtype of an input, in either mode of type_check."""
    value = type_check.eval(in_type)
    return tuple(value.shape), value.dtype


def _describe(name: str, in_type: Any) -> str:
    shape, dtype = _info(in_type)
    return f'{name}.shape={shape}, {name}.dtype={dtype}'


def expect_float(name: str, in_type: Any) -> None:
    """Expects a floating point input."""
    _, dtype = _info(in_type)
    if dtype.kind != 'f':
        raise type_check.InvalidType(f'{name}.dtype.kind == f', _describe(name, in_type))


def expect_same(names: tuple[str, ...], in_types: Any) -> None:
    """Expects floating point inputs of one shape and one dtype."""
    expect_float(names[0], in_types[0])
    first = _info(in_types[0])
    for name, in_type in zip(names[1:], in_types[1:]):
        if _info(in_type) != first:
            raise type_check.InvalidType(
                f'{names[0]}.shape == {name}.shape and {names[0]}.dtype == {name}.dtype',
                f'{_describe(names[0], in_types[0])}; {_describe(name, in_type)}')


def expect_labels(x_name: str, x_type: Any, t_name: str, t_type: Any,
                  shape: tuple[int, ...], shape_rule: str) -> None:
    """Expects integer labels of ``shape`` (derived from the scores' shape by ``shape_rule``)."""
    t_shape, t_dtype = _info(t_type)
    if t_dtype.kind != 'i':
        raise type_check.InvalidType(
            f'{t_name}.dtype.kind == i (integer labels)',
            f'{_describe(x_name, x_type)}; {_describe(t_name, t_type)}')
    if t_shape != tuple(shape):
        raise type_check.InvalidType(
            f'{t_name}.shape == {shape_rule}',
            f'{_describe(x_name, x_type)}; {_describe(t_name, t_type)}')


def expect_ndim(name: str, in_type: Any, ndim: int) -> None:
    """Expects an input of ``ndim`` dimensions."""
    shape, _ = _info(in_type)
    if len(shape) != ndim:
        raise type_check.InvalidType(f'{name}.ndim == {ndim}', _describe(name, in_type))


def shape_of(in_type: Any) -> tuple[int, ...]:
    """The shape of an input, in either mode of type_check."""
    return _info(in_type)[0]


def check_label_range(function: str, t: Any, low: int, high: int, x_shape: tuple[int, ...],
                      ignore_label: int | None = None) -> None:
    """Raises a ValueError unless every label is in ``[low, high)`` or is ``ignore_label``."""
    if t.size == 0:
        return
    lo = int(t.min())
    hi = int(t.max())
    if low <= lo and hi < high:
        return
    bad = (t < low) | (t >= high)
    if ignore_label is not None:
        bad &= t != ignore_label
    if not bool(bad.any()):
        return
    value = int(t[bad].ravel()[0])
    allowed = f'[{low}, {high})' if ignore_label is None else \
        f'[{low}, {high}) or ignore_label={ignore_label}'
    raise ValueError(f'{function}: each label must be in {allowed}; got {value} '
                     f'(t.shape={tuple(t.shape)}, x.shape={tuple(x_shape)})')


def check_reduce(function: str, reduce: str, allowed: tuple[str, ...]) -> None:
    """Raises a ValueError unless ``reduce`` is one of ``allowed``."""
    if reduce not in allowed:
        names = ' or '.join(repr(a) for a in allowed)
        raise ValueError(f'{function}: reduce must be {names}; got {reduce!r}')


def array_of(value: Any) -> Any:
    """The array of a Variable, or the value itself."""
    return value.array if isinstance(value, Variable) else value

