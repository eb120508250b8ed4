"""The one tolerance table that catena's numerical tests use (``catena.testing.tolerances``).

Every comparison that :class:`~catena.testing.FunctionTestCase` and
:class:`~catena.testing.LinkTestCase` make takes its tolerances from here,
keyed by the dtype under test and the kind of check:

============ ===================== ===================== =====================
dtype        forward (atol, rtol)  backward (atol, rtol) double backward
============ ===================== ===================== =====================
float16      5e-3, 5e-3            5e-2, 5e-2            5e-2, 5e-2
bfloat16     3e-2, 3e-2            1e-1, 1e-1            1e-1, 1e-1
float32      1e-5, 1e-4            1e-4, 1e-3            1e-3, 1e-2
float64      1e-10, 1e-8           1e-5, 1e-4            1e-4, 1e-3
other        0, 0                  0, 0                  0, 0
============ ===================== ===================== =====================

*forward* compares a function's output with an independent NumPy reference
in the same dtype, so it is limited by the dtype's rounding only.
*backward* and *double backward* compare the analytical gradient (computed in
the dtype under test) with a numerical one computed in float64 with central
differences of step 1e-3, whose truncation error (about 1e-7 times the third
derivative) bounds how tight the float64 row can be.

A test that needs other values says so in its ``check_forward_options``,
``check_backward_options`` or ``check_double_backward_options`` dict.
"""

from __future__ import annotations

import types
from typing import Any

import numpy

_KINDS = ('forward', 'backward', 'double_backward')


def _row(forward: tuple[float, float], backward: tuple[float, float],
         double_backward: tuple[float, float]) -> types.MappingProxyType:
    pairs = zip(_KINDS, (forward, backward, double_backward))
    return types.MappingProxyType({
        kind: types.MappingProxyType({'atol': atol, 'rtol': rtol})
        for kind, (atol, rtol) in pairs})


TOLERANCES = types.MappingProxyType({
    'float16': _row((5e-3, 5e-3), (5e-2, 5e-2), (5e-2, 5e-2)),
    'bfloat16': _row((3e-2, 3e-2), (1e-1, 1e-1), (1e-1, 1e-1)),
    'float32': _row((1e-5, 1e-4), (1e-4, 1e-3), (1e-3, 1e-2)),
    'float64': _row((1e-10, 1e-8), (1e-5, 1e-4), (1e-4, 1e-3)),
})
"""dtype name -> kind ('forward', 'backward', 'double_backward') -> {'atol', 'rtol'}."""

_EXACT = _row((0, 0), (0, 0), (0, 0))


def tolerances(dtype: Any, kind: str = 'forward') -> dict[str, float]:
    """Returns the tolerances for checks of ``kind`` on ``dtype``.

    Args:
        dtype: The dtype under test (anything :class:`numpy.dtype` accepts,
            or a name such as ``'bfloat16'``).
        kind: ``'forward'``, ``'backward'`` or ``'double_backward'``.

    Returns:
        dict: A new ``{'atol': ..., 'rtol': ...}`` dict; non-floating dtypes
        are compared exactly.

    .. admonition:: Example

        >>> testing.tolerances(np.float32, 'backward')
        {'atol': 0.0001, 'rtol': 0.001}
    """
    if kind not in _KINDS:
        raise ValueError(f'kind must be one of {_KINDS}; got {kind!r}')
    name = dtype if isinstance(dtype, str) else numpy.dtype(dtype).name
    return dict(TOLERANCES.get(name, _EXACT)[kind])


__all__ = ['TOLERANCES', 'tolerances']
