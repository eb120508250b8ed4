"""export_testcase and catena_onnx.testing."""

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
from catena_onnx.testing import check_model_expect, input_generator  # noqa: E402


class MLP(catena.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x: catena.Variable) -> catena.Variable:
        return self.l2(F.relu(self.l1(x)))


def _tensor(path: pathlib.Path) -> tuple[str, np.ndarray]:
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return tensor.name, onnx.numpy_helper.to_array(tensor)


def test_export_testcase_writes_onnxs_layout_and_checks(tmp_path: pathlib.Path) -> None:
    model = MLP()
    x = input_generator.increasing(2, 3)
    catena_onnx.export_testcase(model, [x], tmp_path, output_grad=True)
    data = tmp_path / 'test_data_set_0'
    names = sorted(p.name for p in data.iterdir())
    assert names == ['gradient_0.pb', 'gradient_1.pb', 'gradient_2.pb', 'gradient_3.pb',
                     'input_0.pb', 'output_0.pb']
    name, saved_x = _tensor(data / 'input_0.pb')
    assert name == 'Input_0'
    np.testing.assert_array_equal(saved_x, x)
    with catena.using_config('train', False):
        expected = model(x).array
    np.testing.assert_allclose(_tensor(data / 'output_0.pb')[1], expected, rtol=1e-6)
    # d(sum(y))/db2 is one per output unit and batch row
    grads = dict(_tensor(data / f'gradient_{i}.pb') for i in range(4))
    np.testing.assert_allclose(grads['param_l2_b'], np.full(2, 2.0, np.float32))
    check_model_expect(tmp_path)


def test_check_model_expect_fails_on_a_wrong_output(tmp_path: pathlib.Path) -> None:
    catena_onnx.export_testcase(MLP(), [input_generator.increasing(2, 3)], tmp_path)
    path = tmp_path / 'test_data_set_0' / 'output_0.pb'
    name, value = _tensor(path)
    path.write_bytes(onnx.numpy_helper.from_array(value + 1, name).SerializeToString())
    with pytest.raises(AssertionError, match='LinearFunction_1'):
        check_model_expect(tmp_path)
    with pytest.raises(AssertionError, match='graph inputs'):
        check_model_expect(tmp_path, input_names=['a', 'b'])


def test_export_testcase_without_parameters_stores_them_as_inputs(tmp_path: pathlib.Path) -> None:
    catena_onnx.export_testcase(MLP(), [input_generator.increasing(2, 3)], tmp_path,
                                export_params=False)
    names = sorted(p.name for p in (tmp_path / 'test_data_set_0').iterdir())
    assert names == ['input_0.pb', 'input_1.pb', 'input_2.pb', 'input_3.pb', 'input_4.pb',
                     'output_0.pb']
    check_model_expect(tmp_path)


def test_input_generators() -> None:
    np.testing.assert_array_equal(input_generator.shaped_range(2, 2), [[0, 1], [2, 3]])
    x = input_generator.increasing(3, 4)
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x, np.arange(-6, 6).reshape(3, 4) / 2)
    ints = input_generator.increasing(5, dtype=np.int32)
    assert ints.dtype == np.int32 and list(ints) == [-2, -1, 0, 1, 2]
    nz = input_generator.nonzero_increasing(3, 3, dtype=np.float64)
    assert np.all(nz != 0) and nz.dtype == np.float64 and np.all(np.diff(nz.ravel()) > 0)
    with pytest.raises(ValueError, match='float'):
        input_generator.nonzero_increasing(3, dtype=np.int64)
    pos = input_generator.positive_increasing(4)
    assert np.all(pos > 0) and np.all(np.diff(pos) > 0)
    np.testing.assert_allclose(pos, [1e-7, 0.5, 1, 1.5], rtol=1e-6)
