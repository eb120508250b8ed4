"""catena-onnx: export catena models to ONNX, verified with onnxruntime.

The API follows onnx-chainer's: :func:`export`, :func:`export_testcase`,
:func:`convert_parameter`, :mod:`catena_onnx.replace_func` and
:mod:`catena_onnx.testing`.
"""

from __future__ import annotations

from catena_onnx._opsets import MINIMUM_OPSET_VERSION
from catena_onnx.context import ConversionContext
from catena_onnx.errors import UnsupportedFunctionError, VerificationError
from catena_onnx.export import export, export_testcase
from catena_onnx.parameter import convert_parameter
from catena_onnx.registry import Converter, converter
from catena_onnx.verification import VerificationReport, verify

__version__ = '0.1.0'


def __getattr__(name: str) -> object:
    if name == 'MAXIMUM_OPSET_VERSION':  # depends on the installed onnx
        from catena_onnx._opsets import maximum_opset_version

        return maximum_opset_version()
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


__all__ = [
    'MAXIMUM_OPSET_VERSION',
    'MINIMUM_OPSET_VERSION',
    'ConversionContext',
    'Converter',
    'UnsupportedFunctionError',
    'VerificationError',
    'VerificationReport',
    '__version__',
    'convert_parameter',
    'converter',
    'export',
    'export_testcase',
    'verify',
]
