"""catena_onnx.export: tracing, naming, parameters, files, errors and verification."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.functions.activation.relu import ReLU

onnx = pytest.importorskip('onnx')
pytest.importorskip('onnxruntime')
import catena_onnx  # noqa: E402
from catena_onnx import _opsets, registry  # noqa: E402
from catena_onnx.verification import run_onnxruntime  # noqa: E402


class MLP(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 5)
            self.l2 = L.Linear(5, 3)

    def forward(self, x: catena.Variable) -> catena.Variable:
        return self.l2(F.relu(self.l1(x)))


class NotConvertible(catena.FunctionNode):
    def forward(self, inputs: tuple) -> tuple:
        return (inputs[0] * 2,)


class AlsoNotConvertible(NotConvertible):
    pass


def _x(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)


def test_export_names_inputs_parameters_and_outputs_like_onnx_chainer() -> None:
    model = MLP()
    proto = catena_onnx.export(model, _x(2, 4))
    graph = proto.graph
    assert [i.name for i in graph.input] == ['Input_0']
    assert [o.name for o in graph.output] == ['LinearFunction_1']  # the second Linear's value
    assert sorted(i.name for i in graph.initializer) == [
        'param_l1_W', 'param_l1_b', 'param_l2_W', 'param_l2_b']
    assert [n.op_type for n in graph.node] == ['Gemm', 'Relu', 'Gemm']
    assert proto.opset_import[0].version == _opsets.default_opset_version()
    assert proto.producer_name == 'catena-onnx'
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in graph.initializer}
    np.testing.assert_array_equal(weights['param_l1_W'], model.l1.W.array)


@pytest.mark.parametrize('opset', [7, 8, 9, 13, 21])
def test_opset_7_and_8_models_carry_ir_4_so_initializers_need_not_be_inputs(opset: int) -> None:
    proto = catena_onnx.export(MLP(), _x(2, 4), opset_version=opset)
    assert proto.ir_version == {7: 4, 8: 4, 9: 4, 13: 7, 21: 10}[opset]
    assert [i.name for i in proto.graph.input] == ['Input_0']
    run_onnxruntime(proto, {'Input_0': _x(2, 4)})


def test_default_opset_is_the_newest_that_onnxruntime_runs() -> None:
    newest = _opsets.newest_runtime_opset()
    assert newest is not None and 13 <= newest <= _opsets.maximum_opset_version()
    assert catena_onnx.MAXIMUM_OPSET_VERSION == onnx.defs.onnx_opset_version()
    assert catena_onnx.MINIMUM_OPSET_VERSION == 7


@pytest.mark.parametrize('opset', [6, 10**3, '13', True])
def test_opset_out_of_range_is_rejected_by_name(opset: object) -> None:
    with pytest.raises(ValueError, match='opset_version must be an int from 7'):
        catena_onnx.export(MLP(), _x(2, 4), opset_version=opset)


def test_outputs_match_catena_in_onnxruntime() -> None:
    model = MLP()
    x = _x(3, 4)
    proto = catena_onnx.export(model, x)
    (got,) = run_onnxruntime(proto, {'Input_0': x}).values()
    with catena.using_config('train', False):
        np.testing.assert_allclose(got, model(x).array, rtol=1e-6, atol=1e-6)


def test_names_given_as_list_string_and_dict() -> None:
    proto = catena_onnx.export(MLP(), [_x(2, 4)], input_names=['x'], output_names='y')
    assert [i.name for i in proto.graph.input] == ['x']
    assert [o.name for o in proto.graph.output] == ['y']

    def two_in_two_out(a: catena.Variable, b: catena.Variable) -> dict:
        return {'sum': F.relu(a), 'other': F.relu(b)}

    proto = catena_onnx.export(two_in_two_out, {'a': _x(2), 'b': _x(2)},
                               output_names={'sum': 's', 'other': 'o'})
    assert [i.name for i in proto.graph.input] == ['a', 'b']
    assert [o.name for o in proto.graph.output] == ['s', 'o']


@pytest.mark.parametrize('names, message', [
    (['a', 'b'], 'input_names must hold 1 name'),
    ([''], 'non-empty strings'),
])
def test_wrong_input_names_are_rejected(names: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        catena_onnx.export(MLP(), _x(2, 4), input_names=names)


def test_duplicate_output_names_are_rejected() -> None:
    with pytest.raises(ValueError, match='output_names must be distinct'):
        catena_onnx.export(lambda x: (F.relu(x), F.relu(x)), _x(2), output_names=['y', 'y'])


def test_return_named_inout_gives_the_variables() -> None:
    model = MLP()
    proto, inputs, outputs = catena_onnx.export(model, _x(2, 4), return_named_inout=True)
    assert list(inputs) == ['Input_0'] and list(outputs) == ['LinearFunction_1']
    assert isinstance(outputs['LinearFunction_1'], catena.Variable)
    assert outputs['LinearFunction_1'].shape == (2, 3)
    assert proto.graph.output[0].name == 'LinearFunction_1'


def test_default_output_names_follow_the_values_and_fall_back_to_output_i() -> None:
    def model(x: catena.Variable) -> tuple:
        a, b = F.split_axis(x, 2, 0)
        return b, F.relu(x), x, F.relu(x) * 0 + x  # x: an input, so Output_2
    proto = catena_onnx.export(model, _x(4))
    assert [o.name for o in proto.graph.output] == ['SplitAxis_0_1', 'ReLU_0', 'Output_2',
                                                    'Add_0']
    out = run_onnxruntime(proto, {'Input_0': _x(4)})
    np.testing.assert_array_equal(out['Output_2'], _x(4))
    np.testing.assert_array_equal(out['SplitAxis_0_1'], _x(4)[2:])


def test_export_params_false_turns_parameters_into_inputs() -> None:
    model = MLP()
    x = _x(2, 4)
    proto = catena_onnx.export(model, x, export_params=False)
    assert len(proto.graph.initializer) == 0
    names = [i.name for i in proto.graph.input]
    assert names[0] == 'Input_0' and set(names[1:]) == {
        'param_l1_W', 'param_l1_b', 'param_l2_W', 'param_l2_b'}
    feeds = {'Input_0': x}
    feeds.update({'param' + path.replace('/', '_'): p.array for path, p in model.namedparams()})
    (got,) = run_onnxruntime(proto, feeds).values()
    with catena.using_config('train', False):
        np.testing.assert_allclose(got, model(x).array, rtol=1e-6, atol=1e-6)


def test_unused_branches_are_left_out() -> None:
    def model(x: catena.Variable) -> catena.Variable:
        NotConvertible().apply((x,))  # computed, never returned
        return F.relu(x)

    proto = catena_onnx.export(model, _x(3))
    assert [n.op_type for n in proto.graph.node] == ['Relu']


def test_an_output_that_is_an_input_goes_through_identity() -> None:
    proto = catena_onnx.export(lambda x: (x, F.relu(x)), _x(3))
    assert [n.op_type for n in proto.graph.node] == ['Relu', 'Identity']
    x = _x(3)
    out = run_onnxruntime(proto, {'Input_0': x})
    np.testing.assert_array_equal(out['Output_0'], x)  # an input: Output_<i> via Identity


def test_constant_inputs_become_initializers() -> None:
    class WithPersistent(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            self.add_persistent('shift', np.full((3,), 0.5, np.float32))

        def forward(self, x: catena.Variable) -> catena.Variable:
            return F.relu(catena.functions.concat((x, self.shift[None]), axis=0))

    table = {catena.functions.array.concat.Concat: lambda ctx: ctx.node(
        'Concat', ctx.inputs, ctx.outputs, axis=0)}
    proto = catena_onnx.export(WithPersistent(), _x(1, 3), external_converters=table)
    assert [i.name for i in proto.graph.initializer] == ['Constant']
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(proto.graph.initializer[0]),
                                  np.full((1, 3), 0.5, np.float32))


def test_constant_inputs_of_batch_normalization_are_named_after_the_function() -> None:
    def model(x: catena.Variable) -> catena.Variable:
        mean, var = x.array.mean(axis=0), x.array.var(axis=0)
        gamma, beta = np.ones_like(mean), np.zeros_like(mean)
        y = F.fixed_batch_normalization(x, gamma, beta, mean, var)
        return F.fixed_batch_normalization(y, gamma, beta, mean, var)

    x = _x(4, 3)
    proto = catena_onnx.export(model, x)
    assert [i.name for i in proto.graph.initializer] == [
        f'FixedBatchNormalization_{n}_param_{name}'
        for n in (0, 1) for name in ('gamma', 'beta', 'avg_mean', 'avg_var')]
    out = run_onnxruntime(proto, {'Input_0': x})
    np.testing.assert_allclose(next(iter(out.values())), model(catena.Variable(x)).array,
                               rtol=1e-5, atol=1e-5)


def test_param_names_leave_other_constants_and_persistents_alone() -> None:
    concat = catena.functions.array.concat.Concat
    table = {concat: registry.Converter(
        concat, lambda ctx: ctx.node('Concat', ctx.inputs, ctx.outputs, axis=0),
        param_names=(None, 'extra', 'shift'))}

    class WithPersistent(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            self.add_persistent('shift', np.full((1, 3), 0.5, np.float32))

        def forward(self, x: catena.Variable) -> catena.Variable:
            extra = np.ones((1, 3), np.float32)
            return F.concat((x, extra, self.shift, extra * 2), axis=0)

    proto = catena_onnx.export(WithPersistent(), _x(1, 3), external_converters=table)
    assert [i.name for i in proto.graph.initializer] == ['Concat_0_param_extra', 'param_shift',
                                                         'Constant']


def test_unsupported_functions_are_listed_and_nothing_is_written(tmp_path: pathlib.Path) -> None:
    target = tmp_path / 'model.onnx'
    target.write_bytes(b'old')

    def model(x: catena.Variable) -> catena.Variable:
        (h,) = NotConvertible().apply((F.relu(x),))
        (h,) = AlsoNotConvertible().apply((h,))
        (h,) = NotConvertible().apply((h,))
        return h

    with pytest.raises(catena_onnx.UnsupportedFunctionError) as info:
        catena_onnx.export(model, _x(2, 3), filename=target)
    message = str(info.value)
    assert '3 function node(s) have no converter' in message
    assert '1. NotConvertible (' in message
    assert 'NotConvertible) applied to inputs of shape (2, 3)' in message
    assert message.count('AlsoNotConvertible') == 2
    assert 'external_converters' in message and 'catena_onnx_converters' in message
    assert [cls for cls, _, _ in info.value.unsupported] == [
        NotConvertible, AlsoNotConvertible, NotConvertible]
    assert target.read_bytes() == b'old'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['model.onnx']


def test_an_opset_below_a_converters_range_is_reported_with_the_range() -> None:
    def convert(ctx: catena_onnx.ConversionContext) -> None:
        ctx.node('Relu', ctx.inputs, ctx.outputs)

    table = registry.default_table().with_external(
        {NotConvertible: catena_onnx.Converter(NotConvertible, convert, min_opset=14)})
    assert table.lookup(NotConvertible(), 13) is None
    with pytest.raises(catena_onnx.UnsupportedFunctionError, match='writes opsets 14 to newest'):
        catena_onnx.export(lambda x: NotConvertible().apply((x,))[0], _x(2), opset_version=13,
                           external_converters={NotConvertible: catena_onnx.Converter(
                               NotConvertible, convert, min_opset=14)})


def test_external_converters_by_class_and_by_label() -> None:
    def double(ctx: catena_onnx.ConversionContext) -> None:
        ctx.node('Add', [ctx.inputs[0], ctx.inputs[0]], ctx.outputs)

    x = _x(4)
    for key in (NotConvertible, 'NotConvertible'):
        proto = catena_onnx.export(lambda v: NotConvertible().apply((v,))[0], x,
                                   external_converters={key: double})
        got = next(iter(run_onnxruntime(proto, {'Input_0': x}).values()))
        np.testing.assert_allclose(got, 2 * x)


def test_external_converter_overrides_a_builtin_and_custom_domains_are_imported() -> None:
    def custom(params: object) -> object:  # onnx-chainer's style: return the node
        return onnx.helper.make_node('CustomizedRelu', params.input_names,  # type: ignore
                                     params.output_names, domain='catena')

    proto = catena_onnx.export(F.relu, _x(3), external_converters={ReLU: custom},
                               external_opset_imports={'catena': 1})
    assert [(n.op_type, n.domain) for n in proto.graph.node] == [('CustomizedRelu', 'catena')]
    assert {(o.domain, o.version) for o in proto.opset_import} >= {('catena', 1)}


def test_external_converters_must_be_callable() -> None:
    with pytest.raises(TypeError, match="external_converters\\['ReLU'\\] must be callable"):
        catena_onnx.export(F.relu, _x(3), external_converters={'ReLU': 3})


def test_plugins_contribute_converters_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from catena.plugins import _manager

    def convert(ctx: catena_onnx.ConversionContext) -> None:
        ctx.node('Neg', ctx.inputs, ctx.outputs)

    monkeypatch.setattr(_manager, 'call_each', lambda name: [
        ('toy', {NotConvertible: convert})] if name == 'catena_onnx_converters' else [])
    monkeypatch.setattr(registry, '_default_table', None)
    x = _x(3)
    proto = catena_onnx.export(lambda v: NotConvertible().apply((v,))[0], x)
    np.testing.assert_allclose(next(iter(run_onnxruntime(proto, {'Input_0': x}).values())), -x)
    monkeypatch.setattr(_manager, 'call_each', lambda name: [('bad', {'x': 3})])
    monkeypatch.setattr(registry, '_default_table', None)
    with pytest.raises(TypeError, match="plugin 'bad'"):
        registry.default_table()
    monkeypatch.setattr(registry, '_default_table', None)


def test_files_are_written_atomically_with_optional_text(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'mlp.onnx'
    proto = catena_onnx.export(MLP(), _x(2, 4), filename=path, save_text=True)
    assert onnx.load(str(path)) == proto
    assert 'Gemm' in (tmp_path / 'mlp.onnx.txt').read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['mlp.onnx', 'mlp.onnx.txt']
    buffer = io.BytesIO()
    catena_onnx.export(MLP(), _x(2, 4), filename=buffer)
    assert onnx.load_from_string(buffer.getvalue()).graph.node[0].op_type == 'Gemm'


def test_train_mode_is_off_unless_asked() -> None:
    seen = []

    def model(x: catena.Variable) -> catena.Variable:
        seen.append(catena.config.train)
        return F.relu(x)

    catena_onnx.export(model, _x(2))
    catena_onnx.export(model, _x(2), train=True)
    assert seen == [False, True]


def test_verify_prints_the_differences(capsys: pytest.CaptureFixture) -> None:
    catena_onnx.export(MLP(), _x(2, 4), verify=True, output_names='y')
    out = capsys.readouterr().out
    assert out.startswith('y: max abs diff ')


def test_verify_raises_on_a_wrong_converter_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    def wrong(ctx: catena_onnx.ConversionContext) -> None:
        ctx.node('Abs', ctx.inputs, ctx.outputs)

    path = tmp_path / 'wrong.onnx'
    with pytest.raises(catena_onnx.VerificationError, match='beyond tolerance') as info:
        catena_onnx.export(F.relu, _x(5), filename=path, verify=True,
                           external_converters={ReLU: wrong})
    assert not info.value.report.ok
    assert info.value.report.outputs[0].max_abs > 0.1
    assert not path.exists()


def test_verify_compares_integer_outputs_exactly() -> None:
    from catena_onnx.verification import compare

    report = compare({'y': np.array([1, 2, 3])}, {'y': np.array([1, 2, 4])}, 0.5, 0)
    assert not report.ok and report.outputs[0].max_abs == 1
    report = compare({'y': np.zeros((2,))}, {'y': np.zeros((3,))}, 1e-3, 1e-3)
    assert not report.ok


def test_input_shapes_declare_symbolic_dimensions() -> None:
    proto = catena_onnx.export(MLP(), _x(2, 4), input_shapes=[('batch', 4)])
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == 'batch' and dims[1].dim_value == 4
    with pytest.raises(ValueError, match='has 1 dimensions but the input has 2'):
        catena_onnx.export(MLP(), _x(2, 4), input_shapes=[(4,)])


def test_dynamic_axes_run_at_other_batch_sizes() -> None:
    model = MLP()
    proto = catena_onnx.export(model, _x(2, 4), output_names='Output_0',
                               dynamic_axes={'Input_0': {0: 'batch'}, 'Output_0': [0]})
    dims = proto.graph.output[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == 'Output_0_dim0'
    with catena.using_config('train', False):
        for batch in (3, 7):
            x = _x(batch, 4)
            (got,) = run_onnxruntime(proto, {'Input_0': x}).values()
            np.testing.assert_allclose(got, model(x).array, rtol=1e-6, atol=1e-6)


def test_dynamic_axes_must_name_inputs_or_outputs() -> None:
    with pytest.raises(ValueError, match=r"dynamic_axes names \['z'\]"):
        catena_onnx.export(MLP(), _x(2, 4), dynamic_axes={'z': [0]})
    with pytest.raises(ValueError, match='names axis 5'):
        catena_onnx.export(MLP(), _x(2, 4), dynamic_axes={'Input_0': [5]})


def test_bad_args_and_outputs_are_rejected_by_name() -> None:
    with pytest.raises(TypeError, match=r'args\[1\] must be an array or a Variable'):
        catena_onnx.export(MLP(), [_x(2, 4), 'text'])
    with pytest.raises(TypeError, match='output 0 of the model is a ndarray'):
        catena_onnx.export(lambda x: [x.array], _x(2))
    with pytest.raises(TypeError, match='the model must return a Variable'):
        catena_onnx.export(lambda x: 3, _x(2))


def test_convert_parameter() -> None:
    model = MLP()
    tensor = catena_onnx.convert_parameter(model.l1.W, 'w')
    assert tensor.name == 'w'
    np.testing.assert_array_equal(onnx.numpy_helper.to_array(tensor), model.l1.W.array)
    assert catena_onnx.convert_parameter(np.ones(2, np.float32)).dims == [2]
    with pytest.raises(ValueError, match='not initialized'):
        catena_onnx.convert_parameter(L.Linear(None, 2).W)
    with pytest.raises(ValueError, match='must be a catena.Parameter'):
        catena_onnx.convert_parameter([1, 2])
