"""The default conversion of a function wrapped by :mod:`catena_onnx.replace_func`.

A wrapped function named after a FunctionNode class that has a converter
(``AddConstant``, ``MulConstant``, ...) is converted by that converter, which
reads the function's other arguments as the node's attributes (``value``).
Otherwise a name that is an ONNX operator (``Shape``, ``Reshape``, ``Add``)
becomes that operator; any other name a custom operator in the domain
``catena.custom``.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena_onnx.context import ConversionContext
from catena_onnx.registry import converter, default_table
from catena_onnx.replace_func import WrappedFunctionNode

#: The domain of the custom operators written for wrapped functions.
CUSTOM_DOMAIN = 'catena.custom'

_ATTRIBUTE_TYPES = (int, float, str, bytes, numpy.integer, numpy.floating)


def _onnx_attributes(attributes: dict[str, Any], allowed: Any = None) -> dict[str, Any]:
    """The attributes ONNX can hold (numbers, strings and lists of them)."""
    kept = {}
    for key, value in attributes.items():
        if allowed is not None and key not in allowed:
            continue
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, _ATTRIBUTE_TYPES) or (
                isinstance(value, (list, tuple)) and value
                and all(isinstance(v, _ATTRIBUTE_TYPES) and not isinstance(v, bool)
                        for v in value)):
            kept[key] = list(value) if isinstance(value, tuple) else value
    return kept


def _as_builtin(ctx: ConversionContext) -> bool:
    """Converts with the converter of the FunctionNode class named like the function."""
    func = ctx.func
    table = default_table()
    for cls in table.classes():
        if cls.__name__ != func.custom_function_node_name or issubclass(cls, WrappedFunctionNode):
            continue
        found = table.lookup(object.__new__(cls), ctx.opset)
        if found is None:
            return False
        stand_in = object.__new__(cls)
        stand_in.__dict__.update(func.attributes)
        builder = ctx.builder
        nodes, initializers = len(builder.nodes), len(builder.initializers)
        ctx.func = stand_in
        try:
            found.convert(ctx)
        except (AttributeError, KeyError, TypeError, IndexError, StopIteration):
            del builder.nodes[nodes:], builder.initializers[initializers:]
            return False
        finally:
            ctx.func = func
        return True
    return False


@converter(WrappedFunctionNode)
def convert_wrapped(ctx: ConversionContext) -> None:
    """Writes the wrapped function as a built-in conversion, an ONNX operator, or a
    custom operator of the domain ``catena.custom``."""
    if _as_builtin(ctx):
        return
    from onnx import defs

    func = ctx.func
    name = func.custom_function_node_name
    try:
        schema = defs.get_schema(name, ctx.opset) if defs.has(name) else None
    except defs.SchemaError:  # an operator newer than this opset
        schema = None
    if schema is not None:
        ctx.node(name, ctx.inputs, ctx.outputs,
                 **_onnx_attributes(func.attributes, set(schema.attributes)))
        return
    ctx.node(name, ctx.inputs, ctx.outputs, domain=CUSTOM_DOMAIN,
             **_onnx_attributes(func.attributes))
