"""``convert_parameter``: one parameter or array as an ONNX tensor."""

from __future__ import annotations

from typing import Any

import catena
from catena_onnx import _trace


def convert_parameter(parameter: Any, name: str | None = None) -> Any:
    """Returns a Parameter, Variable or array as an ``onnx.TensorProto``.

    Args:
        parameter: A :class:`catena.Parameter`, :class:`catena.Variable` or
            array (on any device; it is copied to the host).
        name: The tensor's name (default: the variable's name, else empty).

    Returns:
        onnx.TensorProto: The tensor.
    """
    from onnx import numpy_helper

    if isinstance(parameter, catena.Variable):
        array = parameter.array
        name = parameter.name if name is None else name
    elif hasattr(parameter, 'shape') and hasattr(parameter, 'dtype'):
        array = parameter
    else:
        raise ValueError('parameter must be a catena.Parameter, a Variable or an array; got '
                         f'{type(parameter).__name__}')
    if array is None:
        raise ValueError('parameter is not initialized (its array is None)')
    return numpy_helper.from_array(_trace.host_array(array), name or '')
