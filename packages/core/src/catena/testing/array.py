"""Array assertions that accept arrays of any device (``catena.testing.assert_allclose``)."""

from __future__ import annotations

from typing import Any

import numpy


def _to_host(value: Any) -> numpy.ndarray:
    """Returns a NumPy copy of a Variable, an array of any device or a scalar."""
    from catena import backend
    from catena.variable import Variable

    if isinstance(value, Variable):
        value = value.array
    if isinstance(value, numpy.ndarray) and type(value) is numpy.ndarray:
        return value
    if isinstance(value, (numpy.generic, int, float, complex, bool, list, tuple)):
        return numpy.asarray(value)
    return numpy.asarray(backend.get_device_from_array(value).to_numpy(value))


def _describe(what: str, original: Any, host: numpy.ndarray) -> str:
    from catena import backend
    from catena.variable import Variable

    array = original.array if isinstance(original, Variable) else original
    kind = 'Variable' if isinstance(original, Variable) else type(original).__name__
    device = backend.get_device_from_array(array) if hasattr(array, 'dtype') else 'python'
    return f'{what}: shape {host.shape}, dtype {host.dtype}, {kind} on {device}'


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4,
                    verbose: bool = True) -> None:
    """Asserts that ``|x - y| <= atol + rtol * |y|`` element-wise.

    Unlike :func:`numpy.testing.assert_allclose`, ``x`` and ``y`` may be
    Variables or arrays of any device (they may differ), and the defaults
    are ``atol=1e-5, rtol=1e-4``. Shapes must be equal, except that a scalar
    (0-d) side is broadcast. NaNs in the same places compare equal.

    Args:
        x: The actual values.
        y: The expected values.
        atol: Absolute tolerance.
        rtol: Relative tolerance (relative to ``|y|``).
        verbose: Also print both arrays in the error message.

    Raises:
        AssertionError: With the shapes and dtypes, the number of mismatched
            elements, the maximum absolute and relative errors and the index
            and values of the worst element.

    .. admonition:: Example

        >>> testing.assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0000001]))
    """
    hx = _to_host(x)
    hy = _to_host(y)
    header = [_describe('x (actual)', x, hx), _describe('y (expected)', y, hy)]
    if hx.shape != hy.shape and hx.ndim != 0 and hy.ndim != 0:
        raise AssertionError('\n'.join(
            [f'assert_allclose: shapes differ: x {hx.shape} != y {hy.shape}'] + header))
    try:
        bx, by = numpy.broadcast_arrays(hx, hy)
    except ValueError:
        raise AssertionError('\n'.join(
            [f'assert_allclose: shapes differ: x {hx.shape} != y {hy.shape}'] + header)) from None
    if bx.size == 0:
        return
    wide = numpy.result_type(bx.dtype, by.dtype, numpy.float64)
    fx = bx.astype(wide)
    fy = by.astype(wide)
    with numpy.errstate(invalid='ignore', over='ignore'):
        both_nan = numpy.isnan(fx) & numpy.isnan(fy)
        same_inf = numpy.isinf(fx) & (fx == fy)
        abs_err = numpy.abs(fx - fy)
        bad = ~(both_nan | same_inf | (abs_err <= atol + rtol * numpy.abs(fy)))
    n_bad = int(bad.sum())
    if n_bad == 0:
        return
    with numpy.errstate(invalid='ignore', divide='ignore', over='ignore'):
        excess = numpy.where(bad, abs_err - (atol + rtol * numpy.abs(fy)), -numpy.inf)
        excess = numpy.where(numpy.isnan(excess), numpy.inf, excess)
        rel_err = abs_err / numpy.abs(fy)
    worst = numpy.unravel_index(int(numpy.argmax(excess)), bx.shape)
    finite_abs = abs_err[bad & numpy.isfinite(abs_err)]
    finite_rel = rel_err[bad & numpy.isfinite(rel_err)]
    index = tuple(int(i) for i in worst)
    lines = [
        f'assert_allclose: {n_bad} of {bx.size} elements differ more than '
        f'atol={atol:g} + rtol={rtol:g} * |y|',
        *header,
        f'max absolute error: {finite_abs.max() if finite_abs.size else "nan/inf"}',
        f'max relative error: {finite_rel.max() if finite_rel.size else "inf (y == 0)"}',
        f'worst element at index {index}: x={bx[worst]!r}, y={by[worst]!r}, '
        f'|x - y|={abs_err[worst]!r}, allowed={atol + rtol * abs(fy[worst])!r}',
    ]
    if verbose:
        with numpy.printoptions(threshold=200, edgeitems=5, precision=8):
            lines += [f'x: {hx!r}', f'y: {hy!r}']
    raise AssertionError('\n'.join(lines))


def _as_noncontiguous_array(array: Any) -> Any:
    """Returns a copy of ``array`` that is neither C- nor F-contiguous, on the same device.

    Lists and tuples are converted element-wise, None stays None, and arrays
    of at most one element (which are always contiguous) are returned as is.
    """
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(_as_noncontiguous_array(a) for a in array)
    if array.ndim == 0 or array.size <= 1:
        return array
    from catena import backend

    xp = backend.get_array_module(array)
    buffer = xp.empty(array.shape + (2,), dtype=array.dtype)
    view = buffer[..., 0]
    view[...] = array
    return view


__all__ = ['assert_allclose']
