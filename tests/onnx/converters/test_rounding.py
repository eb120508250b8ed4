"""sign, floor, ceil and fix: traced as nodes and exported as operators, not constants."""

from __future__ import annotations

import numpy as np
import pytest

import catena
import catena.functions as F

pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx.converters.rounding import CeilNode, FixNode, FloorNode, SignNode  # noqa: E402
from catena_onnx.testing import ConverterCase, check_case, uncovered  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402

MODULE = 'catena_onnx.converters.rounding'
X = np.array([[-2.5, -1.0, -0.3, 0.0], [0.3, 1.0, 2.5, 7.9]], np.float32)

CASES = [
    ConverterCase('sign', lambda x: F.sign(x) * x, [X], (SignNode,)),
    ConverterCase('floor', lambda x: F.floor(x) + x, [X], (FloorNode,)),
    ConverterCase('ceil', lambda x: F.ceil(x * 2.0), [X], (CeilNode,)),
    ConverterCase('fix', lambda x: F.fix(x), [X.astype(np.float64)], (FixNode,)),
]


def test_converter_matches_onnxruntime(converter_run: tuple[ConverterCase, int]) -> None:
    case, opset = converter_run
    model = check_case(case, opset)
    assert model.opset_import[0].version == opset


def test_every_converter_has_a_case() -> None:
    assert uncovered(CASES, MODULE) == []


def test_the_result_follows_new_inputs_instead_of_being_a_constant() -> None:
    proto = catena_onnx.export(lambda x: F.floor(x), X)
    other = X + 10.25
    got = next(iter(run_onnxruntime(proto, {'Input_0': other}).values()))
    np.testing.assert_array_equal(got, np.floor(other))
    assert not proto.graph.initializer


def test_the_functions_are_restored_after_export() -> None:
    catena_onnx.export(lambda x: F.sign(x), X)
    assert F.sign.__module__ == 'catena.functions.math.sign'
    y = F.sign(catena.Variable(X))
    assert y.creator is None and not y.requires_grad
