"""matmul, batch_matmul and the @ operator."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.functions.math import basic_math
from catena.functions.math.matmul import MatMul
from catena.utils.type_check import InvalidType


def _op(x, trans):
    return np.swapaxes(x, -1, -2) if trans and x.ndim > 1 else x


_SHAPES = [
    {'a_shape': (3, 4), 'b_shape': (4, 2)},
    {'a_shape': (2, 3, 4), 'b_shape': (2, 4, 2)},
    {'a_shape': (2, 1, 3, 4), 'b_shape': (3, 4, 2)},   # batch broadcast
    {'a_shape': (3, 4), 'b_shape': (2, 4, 2)},         # a broadcast over b's batch
    {'a_shape': (4,), 'b_shape': (4, 2)},
    {'a_shape': (3, 4), 'b_shape': (4,)},
    {'a_shape': (4,), 'b_shape': (4,)},
    {'a_shape': (4,), 'b_shape': (2, 4, 3)},
]


@testing.parameterize(
    *testing.product_dict(_SHAPES, [{'transa': False, 'transb': False, 'dtype': np.float64},
                                    {'transa': True, 'transb': True, 'dtype': np.float32}]),
    *testing.product_dict(_SHAPES[:2], [{'transa': True, 'transb': False},
                                        {'transa': False, 'transb': True}],
                          [{'dtype': np.float16}, {'dtype': np.float32}]),
)
class TestMatMul(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def _shape(self, shape, trans):
        if trans and len(shape) > 1:
            return shape[:-2] + (shape[-1], shape[-2])
        return shape

    def generate_inputs(self):
        a = np.random.uniform(-1, 1, self._shape(self.a_shape, self.transa))
        b = np.random.uniform(-1, 1, self._shape(self.b_shape, self.transb))
        return a.astype(self.dtype), b.astype(self.dtype)

    def forward(self, inputs, device):
        a, b = inputs
        return F.matmul(a, b, transa=self.transa, transb=self.transb),

    def forward_expected(self, inputs):
        a, b = (x.astype(np.float64) for x in inputs)
        y = np.matmul(_op(a, self.transa), _op(b, self.transb))
        return np.asarray(y, dtype=self.dtype),


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestMatMulTransC(testing.FunctionTestCase):
    """The node's transc (used by gradients) transposes the result."""

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (2, 3, 4)).astype(self.dtype),
                np.random.uniform(-1, 1, (4, 5)).astype(self.dtype))

    def forward(self, inputs, device):
        return MatMul(transa=False, transb=False, transc=True).apply(inputs)

    def forward_expected(self, inputs):
        a, b = inputs
        return np.swapaxes(a @ b, -1, -2).astype(self.dtype),


@testing.parameterize(
    {'shapes': ((2, 3, 4), (2, 4, 5)), 'transa': False, 'transb': False},
    {'shapes': ((2, 3), (2, 3)), 'transa': True, 'transb': False},     # inner products
    {'shapes': ((2, 3), (2, 2)), 'transa': False, 'transb': True},     # outer products
    {'shapes': ((2, 4, 3), (2, 4)), 'transa': True, 'transb': False},
    {'shapes': ((2, 3, 4), (2, 5, 4)), 'transa': False, 'transb': True},
)
class TestBatchMatMul(testing.FunctionTestCase):
    dtype = np.float32

    def _as_batch(self, x):
        return x.reshape(x.shape[:2] + (-1,))

    def generate_inputs(self):
        a_shape, b_shape = self.shapes
        return (np.random.uniform(-1, 1, a_shape).astype(self.dtype),
                np.random.uniform(-1, 1, b_shape).astype(self.dtype))

    def forward(self, inputs, device):
        a, b = inputs
        with pytest.warns(DeprecationWarning, match='matmul'):
            return F.batch_matmul(a, b, transa=self.transa, transb=self.transb),

    def forward_expected(self, inputs):
        a, b = (self._as_batch(x) for x in inputs)
        if self.transa:
            a = np.swapaxes(a, 1, 2)
        if self.transb:
            b = np.swapaxes(b, 1, 2)
        return np.matmul(a, b).astype(self.dtype),


@testing.parameterize(*testing.product({
    'shapes': [((3, 4), (4, 2)), ((2, 3, 4), (4,)), ((4,), (4,))],
}))
class TestMatMulOperator(testing.FunctionTestCase):
    dtype = np.float64

    def generate_inputs(self):
        a_shape, b_shape = self.shapes
        return np.random.uniform(-1, 1, a_shape), np.random.uniform(-1, 1, b_shape)

    def forward(self, inputs, device):
        a, b = inputs
        return a @ b,

    def forward_expected(self, inputs):
        a, b = inputs
        return np.asarray(a @ b),


def test_operator_node_is_matmul_var_var():
    a = catena.Variable(np.ones((2, 3), np.float32))
    y = a @ np.ones((3, 2), np.float32)
    assert type(y.creator) is basic_math.MatMulVarVar
    assert isinstance(y.creator, MatMul)
    assert y.creator.label == '_ @ _'
    z = np.ones((4, 2), np.float32) @ a
    assert z.shape == (4, 3)


def test_functions_matmul_is_the_matmul_module():
    assert F.matmul.__module__ == 'catena.functions.math.matmul'
    a = catena.Variable(np.ones((2, 2), np.float32))
    assert type(F.matmul(a, a).creator) is MatMul


def test_transposes_are_views():
    a = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    b = np.random.uniform(-1, 1, (5, 4)).astype(np.float32)
    y = F.matmul(a, b, transb=True)
    np.testing.assert_allclose(y.array, a @ b.T, rtol=1e-5)
    assert y.array.flags.c_contiguous


@pytest.mark.parametrize('a_shape, b_shape, transa, transb', [
    ((3, 4), (3, 2), False, False),
    ((3, 4), (4, 2), True, False),
    ((2, 3, 4), (3, 4, 2), False, False),
    ((4,), (3,), False, False),
])
def test_mismatched_shapes(a_shape, b_shape, transa, transb):
    a = np.zeros(a_shape, np.float32)
    b = np.zeros(b_shape, np.float32)
    with pytest.raises(InvalidType):
        F.matmul(a, b, transa=transa, transb=transb)


def test_invalid_types():
    with pytest.raises(InvalidType, match='a.dtype.kind'):
        F.matmul(np.zeros((2, 2), np.int32), np.zeros((2, 2), np.float32))
    with pytest.raises(InvalidType, match='b.ndim'):
        F.matmul(np.zeros((2, 2), np.float32), np.zeros((), np.float32))


def test_mixed_float_dtypes_give_the_promoted_result_and_own_gradients():
    a = catena.Variable(np.random.uniform(-1, 1, (2, 3)).astype(np.float16))
    b = catena.Variable(np.random.uniform(-1, 1, (3, 2)).astype(np.float32))
    y = F.matmul(a, b)
    assert y.dtype == np.float32
    y.grad = np.ones((2, 2), np.float32)
    y.backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float32
    np.testing.assert_allclose(b.grad, a.array.astype(np.float32).T @ np.ones((2, 2)),
                               rtol=1e-3)


def test_batch_matmul_bad_shapes():
    with pytest.warns(DeprecationWarning):
        with pytest.raises(ValueError, match='batch size'):
            F.batch_matmul(np.zeros((2, 3, 4), np.float32), np.zeros((3, 4, 2), np.float32))
    with pytest.warns(DeprecationWarning):
        with pytest.raises(ValueError, match='2-D or 3-D'):
            F.batch_matmul(np.zeros((3,), np.float32), np.zeros((3, 4), np.float32))
