"""The default conversion of a function wrapped by :mod:`catena_onnx.replace_func`."""

from __future__ import annotations

from catena_onnx.context import ConversionContext
from catena_onnx.registry import converter
from catena_onnx.replace_func import WrappedFunctionNode

#: The domain of the custom operators written for wrapped functions.
CUSTOM_DOMAIN = 'catena.custom'


@converter(WrappedFunctionNode)
def convert_wrapped(ctx: ConversionContext) -> None:
    """Writes a node whose op type is the wrapped function's name, in the domain
    ``catena.custom`` (a custom operator for runtimes that implement it)."""
    func = ctx.func
    ctx.node(func.custom_function_node_name, ctx.inputs, ctx.outputs, domain=CUSTOM_DOMAIN,
             **func.attributes)
