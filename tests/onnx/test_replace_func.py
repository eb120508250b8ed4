"""replace_func: a Python function recorded and exported as one node."""

from __future__ import annotations

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import gradient_check

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx.replace_func import WrappedFunctionNode, as_funcnode, fake_as_funcnode  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402


def scaled_relu(x: catena.Variable, scale: float = 2.0) -> catena.Variable:
    return F.relu(x) * scale


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(1).uniform(-1, 1, shape).astype(np.float32)


def test_the_call_is_one_node_with_the_same_result() -> None:
    wrapped = fake_as_funcnode(scaled_relu, 'ScaledRelu')
    x = catena.Variable(_x(3, 4))
    y = wrapped(x, scale=3.0)
    assert isinstance(y.creator, WrappedFunctionNode) and y.creator.label == 'ScaledRelu'
    assert y.creator.inputs[0] is x.node
    np.testing.assert_array_equal(y.array, scaled_relu(x, 3.0).array)


def test_backward_and_double_backward_follow_the_wrapped_function() -> None:
    wrapped = fake_as_funcnode(lambda x, w: F.tanh(x) * w, 'TanhScale')
    x = _x(3, 2)
    w = _x(3, 2)
    gradient_check.check_backward(wrapped, (x.astype(np.float64), w.astype(np.float64)),
                                  _x(3, 2).astype(np.float64), dtype=np.float64)
    gradient_check.check_double_backward(
        wrapped, (x.astype(np.float64), w.astype(np.float64)), _x(3, 2).astype(np.float64),
        (_x(3, 2).astype(np.float64), _x(3, 2).astype(np.float64)), dtype=np.float64)


def test_variables_nested_in_lists_and_dicts_are_inputs_and_outputs() -> None:
    def combine(xs: list, extra: dict) -> tuple:
        return F.relu(xs[0]) + xs[1], [extra['z'] * 2]

    wrapped = fake_as_funcnode(combine, 'Combine')
    a, b, z = (catena.Variable(_x(2)) for _ in range(3))
    first, (second,) = wrapped([a, b], extra={'z': z})
    assert len(first.creator.inputs) == 3
    assert first.creator is second.creator
    np.testing.assert_allclose(second.array, z.array * 2)


def test_as_funcnode_exports_a_custom_operator_with_attributes() -> None:
    @as_funcnode('ScaledRelu', rename_attributes=[('scale', 'alpha')])
    def op(x: catena.Variable, scale: float = 2.0) -> catena.Variable:
        return scaled_relu(x, scale)

    proto = catena_onnx.export(lambda x: op(x, scale=4.0), _x(3))
    (node,) = proto.graph.node
    assert (node.op_type, node.domain) == ('ScaledRelu', 'catena.custom')
    assert ('catena.custom', 1) in {(o.domain, o.version) for o in proto.opset_import}
    assert [(a.name, a.f) for a in node.attribute] == [('alpha', 4.0)]


def test_a_converter_registered_by_name_turns_it_into_standard_onnx() -> None:
    wrapped = fake_as_funcnode(scaled_relu, 'ScaledRelu', [(1, 'scale')])

    def convert(ctx: catena_onnx.ConversionContext) -> None:
        h = ctx.node('Relu', [ctx.inputs[0]])
        ctx.node('Mul', [h, ctx.scalar_like(ctx.func.attributes['scale'])], ctx.outputs)

    x = _x(2, 3)
    proto = catena_onnx.export(lambda v: wrapped(v, 5.0), x,
                               external_converters={'ScaledRelu': convert})
    got = next(iter(run_onnxruntime(proto, {'Input_0': x}).values()))
    np.testing.assert_allclose(got, np.maximum(x, 0) * 5.0, rtol=1e-6)
