"""Quick input tests that vouch for a FunctionNode's ``check_type_forward``.

A class names one as ``_accepts_types = staticmethod(...)`` beside its
``check_type_forward``; when the test is true, ``apply`` skips the full type
check (see :class:`~catena.FunctionNode`). The compiled engine runs these
three in C; any other function works too, called from Python.
"""

from __future__ import annotations

from typing import Any

import numpy


def two_same_arrays(in_data: tuple[Any, ...]) -> bool:
    """Whether the inputs are two NumPy arrays of one shape and one dtype."""
    if len(in_data) != 2:
        return False
    lhs, rhs = in_data
    return lhs.__class__ is numpy.ndarray and rhs.__class__ is numpy.ndarray \
        and lhs.dtype is rhs.dtype and lhs.shape == rhs.shape


def two_same_float_arrays(in_data: tuple[Any, ...]) -> bool:
    """:func:`two_same_arrays` of a floating-point dtype."""
    return two_same_arrays(in_data) and in_data[0].dtype.kind == 'f'


def one_float_array(in_data: tuple[Any, ...]) -> bool:
    """Whether the input is one NumPy array of a floating-point dtype."""
    return len(in_data) == 1 and in_data[0].__class__ is numpy.ndarray \
        and in_data[0].dtype.kind == 'f'
