"""sign, floor, ceil and fix: recorded while tracing so that they export as operators.

They build no graph in catena (their gradient is zero almost everywhere), so
a plain trace would freeze their results into constants. While export
traces, each is replaced by a wrapper that records one node of its own class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena_onnx.context import ConversionContext
from catena_onnx.registry import converter, substitute_while_tracing
from catena_onnx.replace_func import WrappedFunctionNode, fake_as_funcnode


class SignNode(WrappedFunctionNode):
    """A traced call of :func:`catena.functions.sign`."""


class FloorNode(WrappedFunctionNode):
    """A traced call of :func:`catena.functions.floor`."""


class CeilNode(WrappedFunctionNode):
    """A traced call of :func:`catena.functions.ceil`."""


class FixNode(WrappedFunctionNode):
    """A traced call of :func:`catena.functions.fix` (rounding towards zero)."""


def _recording(node_class: type[WrappedFunctionNode], name: str
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return lambda original: fake_as_funcnode(original, name, node_class=node_class)


for _name, _node_class in (('sign', SignNode), ('floor', FloorNode), ('ceil', CeilNode),
                           ('fix', FixNode)):
    substitute_while_tracing('catena.functions', _name, _recording(_node_class, _name))
    substitute_while_tracing(f'catena.functions.math.{_name}', _name,
                             _recording(_node_class, _name))


@converter(SignNode, opset=(9, None))
def convert_sign(ctx: ConversionContext) -> None:
    ctx.node('Sign', ctx.inputs, ctx.outputs)


@converter(FloorNode)
def convert_floor(ctx: ConversionContext) -> None:
    ctx.node('Floor', ctx.inputs, ctx.outputs)


@converter(CeilNode)
def convert_ceil(ctx: ConversionContext) -> None:
    ctx.node('Ceil', ctx.inputs, ctx.outputs)


@converter(FixNode, opset=(9, None))
def convert_fix(ctx: ConversionContext) -> None:
    (x,) = ctx.inputs
    negative = ctx.op('Less', [x, ctx.scalar_like(0)])
    ctx.op('Where', [negative, ctx.op('Ceil', [x]), ctx.op('Floor', [x])], ctx.outputs[0])
