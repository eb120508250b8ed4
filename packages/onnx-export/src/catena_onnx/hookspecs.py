"""The hook specification that catena-onnx adds to catena's plugin manager.

catena-onnx registers it through ``catena_addhooks``; any plugin may then
implement it with ``from catena.plugins import hookimpl``. It is called once,
when the exporter first builds its table of converters, never per export.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.plugins import hookspec


@hookspec
def catena_onnx_converters() -> dict[type, Callable[..., Any]]:
    """Returns ONNX converters keyed by the FunctionNode class they convert.

    While exporting, every FunctionNode the traced forward pass applied is
    looked up by its class (never by a name string). The converter receives
    the node and the exporter's conversion context (input and output names,
    the ONNX opset version in use, a way to add initializers) and returns
    the ONNX ``NodeProto`` objects that compute the same outputs. A plugin
    that defines its own FunctionNode ships its converter this way; when two
    plugins convert the same class, the exporter keeps one and reports the
    conflict in the runtime report.

    :return: A mapping from :class:`catena.FunctionNode` subclass to
        converter.
    """
