"""Errors that catena-onnx raises."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class UnsupportedFunctionError(ValueError):
    """The model uses FunctionNodes that no converter handles at the requested opset.

    Attributes:
        unsupported: ``(function class, label, input shapes)`` per offending
            node, in the order the model applied them.
        opset: The opset version that was requested.
    """

    def __init__(self, unsupported: Sequence[tuple[type, str, list[tuple[int, ...]]]],
                 opset: int, supported_range: dict[type, tuple[int, int | None]]) -> None:
        self.unsupported = list(unsupported)
        self.opset = opset
        lines = [f'cannot export to ONNX opset {opset}: {len(self.unsupported)} function '
                 'node(s) have no converter:']
        for position, (func_class, label, shapes) in enumerate(self.unsupported):
            where = f'{func_class.__module__}.{func_class.__qualname__}'
            shown = ', '.join(str(tuple(shape)) for shape in shapes)
            line = f'  {position + 1}. {label} ({where}) applied to inputs of shape {shown}'
            span = supported_range.get(func_class)
            if span is not None:
                newest = 'newest' if span[1] is None else str(span[1])
                line += f'; its converter writes opsets {span[0]} to {newest}'
            lines.append(line)
        lines.append(
            'Register a converter for each: pass external_converters={FunctionNodeClass: '
            'convert} to export (convert(ctx) appends ONNX nodes, see '
            'catena_onnx.context.ConversionContext), or implement the catena_onnx_converters '
            'hook in a plugin. Nothing was written.')
        super().__init__('\n'.join(lines))


class VerificationError(AssertionError):
    """onnxruntime's outputs of an exported model differ from catena's.

    Attributes:
        report: The :class:`catena_onnx.verification.VerificationReport`.
    """

    def __init__(self, report: Any) -> None:
        self.report = report
        super().__init__(f'onnxruntime disagrees with catena beyond tolerance:\n{report}')


class ModelOutputTypeError(TypeError, RuntimeError):
    """The model returned something other than a Variable or a list, tuple or dict
    (a RuntimeError too, as onnx-chainer raised)."""


class OutputItemTypeError(TypeError, ValueError):
    """An item of the model's list, tuple or dict of outputs is not a Variable (a
    ValueError too, as onnx-chainer raised)."""
