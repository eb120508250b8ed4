"""Shared checks of the evaluation functions: the shapes of scores and labels, label ranges."""

from __future__ import annotations

from typing import Any

from catena.utils import type_check


def check_scores_and_labels(in_types: Any) -> None:
    """Checks scores ``y`` and labels ``t``.

    ``y`` is of shape ``(N, C, d_1, ..., d_k, 1, ...)`` and floating point;
    ``t`` is of shape ``(N, d_1, ..., d_k)`` and of integer type.
    """
    type_check._argname(in_types, ('y', 't'))
    y_type, t_type = in_types
    type_check.expect(
        y_type.dtype.kind == 'f',
        t_type.dtype.kind == 'i',
        y_type.ndim >= t_type.ndim + 1,
    )
    t_ndim = type_check.eval(t_type.ndim)
    type_check.expect(
        y_type.shape[0] == t_type.shape[0],
        y_type.shape[2:t_ndim + 1] == t_type.shape[1:],
    )
    for axis in range(t_ndim + 1, type_check.eval(y_type.ndim)):
        type_check.expect(y_type.shape[axis] == 1)


def check_label_range(owner: str, t: Any, n_class: int, ignore_label: Any,
                      what: str) -> None:
    """Raises ValueError unless every label of ``t`` is in ``[0, n_class)`` or ``ignore_label``."""
    if t.size == 0:
        return
    bad = (t < 0) | (t >= n_class)
    if ignore_label is not None:
        bad &= t != ignore_label
    if bool(bad.any()):
        values = t[bad]
        ignored = '' if ignore_label is None else f' or ignore_label {ignore_label}'
        raise ValueError(f'{owner}: the labels t (shape {t.shape}, dtype {t.dtype}) must be in '
                         f'[0, {n_class}) ({what}){ignored}; got values from '
                         f'{int(values.min())} to {int(values.max())}')
