"""The "Variables and Derivatives" and "Higher-Order Derivatives" sequences of
the Chainer documentation give the documented values with catena."""

import numpy as np

import catena
from catena import Variable


def test_variables_and_derivatives():
    x = Variable(np.array([5], dtype=np.float32))
    y = x**2 - 2 * x + 1
    np.testing.assert_array_equal(y.array, np.array([16.0], dtype=np.float32))
    assert y.array is y.data

    y.backward()
    np.testing.assert_array_equal(x.grad, np.array([8.0], dtype=np.float32))

    z = 2 * x
    y = x**2 - z + 1
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(z.grad, np.array([-1.0], dtype=np.float32))


def test_multi_element_backward_needs_grad():
    x = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**2 - 2 * x + 1
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward()
    np.testing.assert_array_equal(
        x.grad, np.array([[0, 2, 4], [6, 8, 10]], dtype=np.float32))
    assert x.grad.dtype == np.float32


def test_higher_order_derivatives():
    x = catena.Variable(np.array([[0, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**3
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward(enable_double_backprop=True)
    np.testing.assert_array_equal(
        x.grad_var.array, np.array([[0, 12, 27], [48, 75, 108]], dtype=np.float32))
    assert x.grad_var.array is x.grad
    assert (x.grad == (3 * x**2).array).all()

    gx = x.grad_var
    x.cleargrad()
    gx.grad = np.ones((2, 3), dtype=np.float32)
    gx.backward()
    np.testing.assert_array_equal(
        x.grad, np.array([[0, 12, 18], [24, 30, 36]], dtype=np.float32))
    assert (x.grad == (6 * x).array).all()


def test_grad_var_repr_matches_documentation():
    x = catena.Variable(np.array([[0, 2, 3], [4, 5, 6]], dtype=np.float32))
    y = x**3
    y.grad = np.ones((2, 3), dtype=np.float32)
    y.backward(enable_double_backprop=True)
    assert repr(x.grad_var) == ('variable([[  0.,  12.,  27.],\n'
                                '          [ 48.,  75., 108.]])')
