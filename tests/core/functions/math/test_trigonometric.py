"""sin, cos, tan, arcsin, arccos, arctan and arctan2."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

# name -> (reference formula, low, high): the sampling interval keeps away from
# the poles of tan and the ends of the domains of arcsin and arccos.
UNARY = {
    'sin': (np.sin, -3.0, 3.0),
    'cos': (np.cos, -3.0, 3.0),
    'tan': (lambda x: np.sin(x) / np.cos(x), -1.2, 1.2),
    'arcsin': (lambda x: np.arctan2(x, np.sqrt(1 - x * x)), -0.8, 0.8),
    'arccos': (lambda x: np.arctan2(np.sqrt(1 - x * x), x), -0.8, 0.8),
    'arctan': (np.arctan, -3.0, 3.0),
}


@testing.parameterize(*testing.product({
    'name': sorted(UNARY),
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestUnaryTrigonometric(testing.FunctionTestCase):

    def generate_inputs(self):
        _, low, high = UNARY[self.name]
        return np.random.uniform(low, high, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return getattr(F, self.name)(x),

    def forward_expected(self, inputs):
        x, = inputs
        reference = UNARY[self.name][0]
        return np.asarray(reference(x.astype(np.float64)), dtype=self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2)), ((), ())],
}))
class TestArctan2(testing.FunctionTestCase):

    def generate_inputs(self):
        x1_shape, x2_shape = self.shapes
        # |x1| >= 0.2 keeps away from the origin and from the jump of arctan2
        # between -pi and pi along the negative x2 axis.
        sign = np.where(np.random.uniform(-1, 1, x1_shape) < 0, -1.0, 1.0)
        x1 = sign * np.random.uniform(0.2, 1.0, x1_shape)
        x2 = np.random.uniform(-1.0, 1.0, x2_shape)
        return x1.astype(self.dtype), x2.astype(self.dtype)

    def forward(self, inputs, device):
        x1, x2 = inputs
        return F.arctan2(x1, x2),

    def forward_expected(self, inputs):
        x1, x2 = (x.astype(np.float64) for x in inputs)
        angle = np.arctan(x1 / x2) + np.where(x2 < 0, np.where(x1 >= 0, np.pi, -np.pi), 0.0)
        return np.asarray(angle, dtype=self.dtype),


def test_values_at_known_points():
    x = np.array([0.0, np.pi / 6, np.pi / 4, np.pi / 2])
    np.testing.assert_allclose(F.sin(x).array, [0.0, 0.5, np.sqrt(0.5), 1.0], atol=1e-15)
    np.testing.assert_allclose(F.cos(x).array, [1.0, np.sqrt(0.75), np.sqrt(0.5), 0.0],
                               atol=1e-15)
    np.testing.assert_allclose(F.tan(x[:3]).array, [0.0, 1 / np.sqrt(3), 1.0], atol=1e-15)
    np.testing.assert_allclose(F.arcsin(np.array([0.5, 1.0])).array, [np.pi / 6, np.pi / 2])
    np.testing.assert_allclose(F.arccos(np.array([0.5, -1.0])).array, [np.pi / 3, np.pi])
    np.testing.assert_allclose(F.arctan(np.array([1.0, -1.0])).array, [np.pi / 4, -np.pi / 4])
    np.testing.assert_allclose(
        F.arctan2(np.array([1.0, 1.0, -1.0]), np.array([1.0, -1.0, -1.0])).array,
        [np.pi / 4, 3 * np.pi / 4, -3 * np.pi / 4])


def test_gradients_at_known_points():
    x = catena.Variable(np.array([0.0, np.pi / 3]))
    F.sum(F.sin(x)).backward()
    np.testing.assert_allclose(x.grad, [1.0, 0.5])
    x = catena.Variable(np.array([0.0, np.pi / 6]))
    F.sum(F.cos(x)).backward()
    np.testing.assert_allclose(x.grad, [0.0, -0.5], atol=1e-15)
    x = catena.Variable(np.array([0.0, 0.5]))
    F.sum(F.arcsin(x) + F.arccos(x)).backward()  # the sum is the constant pi / 2
    np.testing.assert_allclose(x.grad, [0.0, 0.0], atol=1e-15)
    x1, x2 = catena.Variable(np.array([3.0])), catena.Variable(np.array([4.0]))
    F.arctan2(x1, x2).backward()
    np.testing.assert_allclose((x1.grad, x2.grad), ([4 / 25], [-3 / 25]))


def test_arctan2_broadcast_gradients_have_input_shapes():
    x1 = catena.Variable(np.full((3, 2), 0.5, np.float32))
    x2 = catena.Variable(np.full((2,), 2.0, np.float32))
    F.sum(F.arctan2(x1, x2)).backward()
    assert x1.grad.shape == (3, 2) and x2.grad.shape == (2,)
    np.testing.assert_allclose(x2.grad, [3 * -0.5 / 4.25] * 2, rtol=1e-6)


@pytest.mark.parametrize('name', sorted(UNARY))
def test_integer_input_is_rejected(name):
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        getattr(F, name)(np.arange(3))


def test_arctan2_rejects_mismatched_dtypes_and_shapes():
    x1 = np.zeros((3, 2), np.float32)
    with pytest.raises(InvalidType, match=r'x2\.dtype == x1\.dtype'):
        F.arctan2(x1, np.ones((3, 2), np.float64))
    with pytest.raises(InvalidType, match=r'x1\.shape'):
        F.arctan2(x1, np.ones((4,), np.float32))
    with pytest.raises(InvalidType, match=r'x1\.dtype\.kind == f'):
        F.arctan2(np.arange(3), np.arange(3))
