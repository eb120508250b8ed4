"""``catena.backends._cpu``: Chainer's module of the NumPy CPU device.

A thin module: :class:`CpuDevice` (``'@numpy'``) and the single-array host
copy that Chainer's internals (and tests) call ``_to_cpu``.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends._numpy import CpuDevice


def _to_cpu(array: Any) -> Any:
    """Returns an array as a NumPy array; NumPy arrays are returned as they are.

    Args:
        array: An array of any registered device, a NumPy or Python scalar
            (returned as a 0-dimensional array), None (returned as is), or a
            list or tuple of those (converted item by item, nested too).

    Raises:
        TypeError: ``array`` is not an array (a :class:`~catena.Variable`
            included: pass ``variable.array``).
    """
    from catena import backend

    if array is None or type(array) is numpy.ndarray:
        return array
    if isinstance(array, (list, tuple)):
        converted = [_to_cpu(item) for item in array]
        return converted if isinstance(array, list) else tuple(converted)
    if isinstance(array, numpy.generic) or numpy.isscalar(array):
        return numpy.asarray(array)
    if not isinstance(array, backend.get_array_types()):
        raise TypeError(
            'The array sent to the CPU must be an array of a registered device or a scalar '
            f'(a Variable: pass variable.array); got {type(array).__name__}')
    return numpy.asarray(backend.get_device_from_array(array).to_numpy(array))


__all__ = ['CpuDevice']
