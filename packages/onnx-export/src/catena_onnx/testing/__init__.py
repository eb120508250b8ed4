"""Testing helpers: input generators, test-case checks with onnxruntime, converter checks."""

from __future__ import annotations

from catena_onnx.testing import input_generator
from catena_onnx.testing.converter_check import (
    ConverterCase,
    builtin_classes,
    case_opsets,
    case_runs,
    check_case,
    uncovered,
)
from catena_onnx.testing.test_onnxruntime import check_model_expect

__all__ = ['ConverterCase', 'builtin_classes', 'case_opsets', 'case_runs', 'check_case',
           'check_model_expect', 'input_generator', 'uncovered']
