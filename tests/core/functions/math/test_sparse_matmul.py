"""sparse_matmul: COO times dense and dense times COO, batched or not."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.math.sparse_matmul import CooMatMul
from catena.utils import CooMatrix, to_coo
from catena.utils.type_check import InvalidType


def _sparse(shape, dtype):
    x = np.random.uniform(-1, 1, shape)
    x[np.random.uniform(size=shape) < 0.5] = 0
    return x.astype(dtype)


@testing.parameterize(*testing.product({
    'sparse_left': [True, False],
    'batched': [False, True],
    'transa': [False, True],
    'transb': [False, True],
    'dtype': [np.float32, np.float64],
}), *testing.product({
    'sparse_left': [True, False], 'batched': [True], 'transa': [False], 'transb': [True],
    'dtype': [np.float16],
}))
class TestSparseMatMul(testing.FunctionTestCase):
    """Inputs: the COO entries (padded) of the sparse operand, then the dense one."""

    def setUp(self):
        m, k, n = 3, 4, 2
        a_shape = (k, m) if self.transa else (m, k)
        b_shape = (n, k) if self.transb else (k, n)
        if self.batched:
            a_shape, b_shape = (2,) + a_shape, (2,) + b_shape
        self.a_shape, self.b_shape = a_shape, b_shape
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
        sparse_shape = self.a_shape if self.sparse_left else self.b_shape
        # One fixed pattern per test, padded by two entries.
        self.coo = to_coo(_sparse(sparse_shape, self.dtype), ldnz=sparse_shape[-1] * 3 + 2)

    def generate_inputs(self):
        data = np.random.uniform(-1, 1, self.coo.data.shape).astype(self.dtype)
        data[self.coo.row < 0] = 0
        dense_shape = self.b_shape if self.sparse_left else self.a_shape
        return data, np.random.uniform(-1, 1, dense_shape).astype(self.dtype)

    def forward(self, inputs, device):
        data, dense = inputs
        row, col = (device.send_array(i) for i in (self.coo.row, self.coo.col))
        sparse = CooMatrix(data, row, col, self.coo.shape)
        if self.sparse_left:
            return F.sparse_matmul(sparse, dense, self.transa, self.transb),
        return F.sparse_matmul(dense, sparse, self.transa, self.transb),

    def forward_expected(self, inputs):
        data, dense = inputs
        sparse = CooMatrix(data, self.coo.row, self.coo.col, self.coo.shape).to_dense()
        a, b = (sparse, dense) if self.sparse_left else (dense, sparse)
        a = np.swapaxes(a, -1, -2) if self.transa else a
        b = np.swapaxes(b, -1, -2) if self.transb else b
        return np.matmul(a.astype(np.float64), b).astype(self.dtype),


def test_gradient_reaches_the_entries():
    x = np.array([[0.0, 2.0], [1.0, 0.0]], np.float32)
    a = to_coo(x, requires_grad=True)
    b = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = F.sparse_matmul(a, b)
    y.grad = np.ones((2, 2), np.float32)
    y.backward()
    # dL/dA = gy @ b^T = [[3, 7], [3, 7]], read at the entries (0, 1) and (1, 0).
    np.testing.assert_array_equal(a.data.grad, [7.0, 3.0])
    assert type(y.creator) is CooMatMul


def test_unsupported_operands():
    coo = to_coo(np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match='one CooMatrix'):
        F.sparse_matmul(coo, coo)
    with pytest.raises(ValueError, match='one CooMatrix'):
        F.sparse_matmul(np.eye(2, dtype=np.float32), np.eye(2, dtype=np.float32))


def test_mismatched_shapes():
    coo = to_coo(np.eye(2, dtype=np.float32))
    with pytest.raises(InvalidType, match='dn.shape'):
        F.sparse_matmul(coo, np.ones((3, 2), np.float32))
    with pytest.raises(InvalidType, match='sp.ndim'):
        F.sparse_matmul(coo, np.ones((1, 2, 2), np.float32))
    with pytest.raises(InvalidType, match='dn.dtype'):
        F.sparse_matmul(coo, np.ones((2, 2), np.int32))


def test_variable_entries_keep_their_graph():
    data = catena.Variable(np.array([2.0, 3.0], np.float32))
    doubled = data * 2
    coo = CooMatrix(doubled, np.array([0, 1]), np.array([1, 0]), (2, 2))
    assert coo.data is doubled
    F.sum(F.sparse_matmul(coo, np.ones((2, 1), np.float32))).backward()
    np.testing.assert_array_equal(data.grad, [2.0, 2.0])


@pytest.mark.parametrize('transa, transb', [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize('dtypes', [(np.float32, np.float32), (np.float16, np.float64),
                                    (np.float64, np.float32)])
def test_coo_matmul_takes_the_order_fourth_and_gives_input_dtype_gradients(
        transa, transb, dtypes):
    a_dtype, b_dtype = dtypes
    a = _sparse((3, 4), a_dtype)
    a = a.T.copy() if transa else a
    b = np.random.uniform(-1, 1, (4, 2)).astype(b_dtype)
    b = b.T.copy() if transb else b
    coo = to_coo(a)
    node = CooMatMul(coo.row, coo.col, coo.shape, coo.order, transa, transb, False)
    assert node.sp_order == coo.order
    data = catena.Variable(coo.data.array)
    dense = catena.Variable(b)
    c = node.apply((data, dense))[0]
    dense_a = a.T if transa else a
    dense_b = b.T if transb else b
    expected = dense_a.astype(np.float64) @ dense_b.astype(np.float64)
    assert c.dtype == np.result_type(a_dtype, b_dtype)
    np.testing.assert_allclose(c.array, expected, rtol=1e-2, atol=1e-2)
    c.grad = np.ones(c.shape, c.dtype)
    c.backward()
    assert data.grad.dtype == a_dtype and dense.grad.dtype == b_dtype
    gb = dense_a.T.astype(np.float64) @ np.ones(c.shape)
    np.testing.assert_allclose(dense.grad, gb.T if transb else gb, rtol=1e-2, atol=1e-2)


def test_coo_matmul_rejects_an_order_that_is_not_one():
    coo = to_coo(np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match='sp_order'):
        CooMatMul(coo.row, coo.col, coo.shape, True)
