"""onnx-chainer's helper API: onnx_helper, RetainInputHook, gen_test_data_set, naming."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx import onnx_helper  # noqa: E402
from catena_onnx.errors import ModelOutputTypeError, OutputItemTypeError  # noqa: E402
from catena_onnx.export import RetainInputHook  # noqa: E402
from catena_onnx.replace_func import as_funcnode, fake_as_funcnode  # noqa: E402
from catena_onnx.testing import check_model_expect, input_generator  # noqa: E402
from catena_onnx.testing.get_test_data_set import gen_test_data_set  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402


def test_onnx_helper_names_nodes_after_the_function_being_converted() -> None:
    def convert_sigmoid_as_tanh_plus_identity(params):  # onnx-chainer's converter style
        gb = onnx_helper.GraphBuilder()
        hidden = gb.op('Tanh', params.input_names)
        gb.op_output_named('Identity', [hidden], params.output_names)
        return gb.nodes()

    x = input_generator.increasing(2, 3)
    converters = {'Sigmoid': convert_sigmoid_as_tanh_plus_identity}
    model = catena_onnx.export(lambda v: F.relu(F.sigmoid(v)), x, external_converters=converters)
    names = [node.name for node in model.graph.node]
    assert names[:2] == ['Sigmoid_0_tmp_0', 'Sigmoid_0_tmp_1']
    assert model.graph.node[0].output[0] == 'Sigmoid_0_tmp_0'
    assert model.graph.node[1].output[0] == 'Sigmoid_0'  # the value is named Label_N
    got = next(iter(run_onnxruntime(model, {'Input_0': x}).values()))
    np.testing.assert_allclose(got, np.maximum(np.tanh(x), 0), rtol=1e-6)
    with pytest.raises(RuntimeError, match='inside a converter'):
        onnx_helper.make_node('Relu', ['a'], ['b'])
    with pytest.raises(TypeError, match='sequence of names'):
        with onnx_helper.converting('F_0'):
            onnx_helper.GraphBuilder().op('Relu', 'x')


def test_converters_may_extend_input_names_and_add_constants() -> None:
    def convert_add_constant_by_gather(params):
        indices = params.context.add_const(np.array([1, 0], np.int64), 'indices')
        params.input_names.append(indices)
        return onnx_helper.make_node('Gather', params.input_names, params.output_names, axis=1),

    x = input_generator.increasing(2, 2)
    model = catena_onnx.export(lambda v: v + 1, x, opset_version=9,
                               external_converters={'AddConstant': convert_add_constant_by_gather})
    assert len(model.graph.initializer) == 0  # converter constants are Constant nodes
    constant = [n for n in model.graph.node if n.op_type == 'Constant'][0]
    assert constant.output[0] == 'AddConstant_0_const_indices'
    got = next(iter(run_onnxruntime(model, {'Input_0': x}).values()))
    np.testing.assert_array_equal(got, x[:, ::-1])


@pytest.mark.parametrize('opset', [7, 9])
def test_integer_constants_are_nodes_in_every_opset(opset: int) -> None:
    x = input_generator.increasing(2, 6)
    model = catena_onnx.export(lambda v: F.reshape(v, (3, 4)), x, opset_version=opset)
    assert len(model.graph.initializer) == 0
    ops = [n.op_type for n in model.graph.node]
    assert ops == (['Constant', 'Cast', 'Reshape'] if opset < 9 else ['Constant', 'Reshape'])
    got = next(iter(run_onnxruntime(model, {'Input_0': x}).values()))
    np.testing.assert_array_equal(got, x.reshape(3, 4))


def test_retain_input_hook_keeps_function_inputs_that_are_not_link_inputs() -> None:
    class Model(catena.Chain):
        def forward(self, x):
            return F.stack([x, catena.Variable(np.array(7, np.float32))])

    x = catena.Variable(np.array(3, np.float32))
    with RetainInputHook() as hook:
        Model()(x)
    assert len(hook.retain_inputs) == 1
    np.testing.assert_array_equal(hook.retain_inputs[0].array, 7)
    with RetainInputHook() as hook:  # an array argument is no link input: kept too
        Model()(np.array(3, np.float32))
    assert len(hook.retain_inputs) == 2
    with RetainInputHook() as hook:
        F.relu(x)  # outside any link: every input is kept
    assert len(hook.retain_inputs) == 1


def test_gen_test_data_set_writes_one_folder_per_opset(tmp_path: pathlib.Path) -> None:
    model = L.Linear(3, 2)
    x = input_generator.increasing(2, 3)
    path = gen_test_data_set(model, x, 'linear', 9, out_dir=tmp_path)
    assert pathlib.Path(path) == tmp_path / 'opset9' / 'linear'
    assert (tmp_path / 'opset9' / 'linear' / 'test_data_set_0' / 'input_0.pb').is_file()
    onnx_model = onnx.load(str(tmp_path / 'opset9' / 'linear' / 'model.onnx'))
    assert onnx_model.opset_import[0].version == 9
    check_model_expect(path, input_names=['Input_0'])


def test_check_model_expect_feeds_saved_inputs_by_name(tmp_path: pathlib.Path) -> None:
    catena_onnx.export_testcase(lambda a, b: a - b, [input_generator.increasing(3),
                                                     input_generator.increasing(3) * 3],
                                tmp_path)
    check_model_expect(tmp_path, input_names=['Input_1', 'Input_0'])  # any order


def test_wrapped_functions_use_builtin_converters_and_onnx_operators() -> None:
    @as_funcnode('AddConstant', rename_attributes=[('b', 'value')])
    def add(x, b=0.25):
        return x.array + b

    @as_funcnode('Shape')
    def shape(x):
        return np.array(x.shape, dtype=np.int64)

    x = input_generator.increasing(2, 3)
    model = catena_onnx.export(lambda v: (add(v), shape(v)), x, opset_version=9)
    assert [n.op_type for n in model.graph.node if n.op_type != 'Constant'] == ['Add', 'Shape']
    assert all(not n.domain for n in model.graph.node)
    got = list(run_onnxruntime(model, {'Input_0': x}).values())
    np.testing.assert_allclose(got[0], x + 0.25)
    np.testing.assert_array_equal(got[1], [2, 3])


def test_wrapped_function_arguments_are_node_attributes() -> None:
    def full(x, value=0, *, fill=1.5):
        return np.full(x.shape, value + fill, np.float32)

    y = fake_as_funcnode(full, 'MyFull', rename_attributes=[('value', 'v')])(
        catena.Variable(np.zeros(2, np.float32)), 3)
    node = y.creator
    assert node.arg1 == 3 and node.fill == 1.5
    with pytest.raises(AttributeError, match='nothing'):
        node.nothing
    y2 = fake_as_funcnode(full, 'MyFull', rename_attributes=[(1, 'v')])(
        catena.Variable(np.zeros(2, np.float32)), 3)
    assert y2.creator.v == 3


def test_a_wrapped_function_without_a_graph_cannot_be_backpropagated() -> None:
    wrapped = fake_as_funcnode(lambda x: x.array * 2, 'Twice')
    x = catena.Variable(np.ones(2, np.float32))
    y = wrapped(x)
    with pytest.raises(ValueError, match='cannot be backpropagated'):
        F.sum(y).backward()


def test_custom_operators_of_external_converters_fail_the_check_with_a_warning() -> None:
    def convert(params):
        return onnx_helper.make_node('MyOp', params.input_names, params.output_names),

    x = input_generator.increasing(2)
    with pytest.warns(UserWarning, match='external_opset_imports'):
        model = catena_onnx.export(F.relu, x, external_converters={'ReLU': convert})
    assert model.graph.node[0].op_type == 'MyOp'
    with pytest.raises(onnx.checker.ValidationError):
        catena_onnx.export(F.relu, x, external_converters={'ReLU': convert},
                           external_opset_imports={'other': 1})


def test_output_type_errors_are_also_onnx_chainers_error_types() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(RuntimeError):
        catena_onnx.export(lambda v: v.array, x)
    with pytest.raises(ModelOutputTypeError):
        catena_onnx.export(lambda v: v.array, x)
    with pytest.raises(ValueError):
        catena_onnx.export(lambda v: (v, v.array), x)
    with pytest.raises(OutputItemTypeError):
        catena_onnx.export(lambda v: ([v],), x)


def test_uninitialized_parameters_are_reported() -> None:
    class Model(catena.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.used = L.Linear(None, 2)
                self.unused = L.Linear(None, 2)

        def forward(self, x):
            return self.used(x)

    with pytest.warns(UserWarning, match='unused/W'):
        catena_onnx.export(Model(), np.ones((1, 3), np.float32))
