"""catena.utils.CooMatrix, to_coo and get_order."""

import numpy as np
import pytest

import catena
from catena.testing._fake_device import FakeArray
from catena.utils import CooMatrix, get_order, to_coo


def test_to_coo_of_a_matrix():
    x = np.array([[0, 2, 0], [-1, 0, 0]], np.float32)
    coo = to_coo(x)
    assert isinstance(coo.data, catena.Variable) and not coo.data.requires_grad
    np.testing.assert_array_equal(coo.data.array, [2, -1])
    np.testing.assert_array_equal(coo.row, [0, 1])
    np.testing.assert_array_equal(coo.col, [1, 0])
    assert coo.row.dtype == np.int32 and coo.shape == (2, 3) and coo.order == 'C'
    np.testing.assert_array_equal(coo.to_dense(), x)


def test_to_coo_pads_to_ldnz():
    coo = to_coo(np.array([[0, 2], [0, 0]], np.float32), ldnz=3, requires_grad=True)
    assert coo.data.requires_grad
    np.testing.assert_array_equal(coo.data.array, [2, 0, 0])
    np.testing.assert_array_equal(coo.row, [0, -1, -1])
    np.testing.assert_array_equal(coo.col, [1, -1, -1])
    np.testing.assert_array_equal(coo.to_dense(), [[0, 2], [0, 0]])


def test_to_coo_of_a_batch():
    x = np.array([[[1, 0], [0, 2]], [[0, 0], [3, 0]]], np.float64)
    coo = to_coo(x)
    assert coo.data.shape == (2, 2) and coo.shape == (2, 2)
    np.testing.assert_array_equal(coo.row, [[0, 1], [1, -1]])
    np.testing.assert_array_equal(coo.to_dense(), x)


def test_to_coo_on_another_device():
    x = np.array([[0, 2], [1, 0]], np.float32).view(FakeArray)
    coo = to_coo(x)
    assert isinstance(coo.data.array, FakeArray) and isinstance(coo.row, FakeArray)
    assert isinstance(coo.to_dense(), FakeArray)
    np.testing.assert_array_equal(np.asarray(coo.to_dense()), x)


def test_duplicate_entries_add_up():
    coo = CooMatrix(np.array([1.0, 2.0]), np.array([0, 0]), np.array([1, 1]), (1, 2))
    np.testing.assert_array_equal(coo.to_dense(), [[0, 3]])


def test_get_order():
    assert get_order(np.array([0, 0, 1]), np.array([0, 2, 1])) == 'C'
    assert get_order(np.array([1, 0, 1]), np.array([0, 1, 1])) == 'F'
    assert get_order(np.array([1, 0, 0]), np.array([1, 1, 0])) == 'other'
    assert get_order(np.array([0, 1, -1]), np.array([1, 0, -1])) == 'C'
    assert get_order(np.array([[0, 1], [1, 0]]), np.array([[0, 0], [0, 1]])) == 'F'
    with pytest.raises(ValueError, match='padding'):
        get_order(np.array([0, -1]), np.array([0, 1]))


@pytest.mark.parametrize('args, match', [
    ((np.zeros(()), np.zeros((), int), np.zeros((), int), (2, 2)), 'data'),
    ((np.zeros(2), np.zeros(3, int), np.zeros(2, int), (2, 2)), 'one shape'),
    ((np.zeros(2), np.zeros(2, int), np.zeros(2, int), (2, 2, 2)), 'shape'),
    ((np.zeros(2), np.zeros(2, int), np.zeros(2, int), (0, 2)), 'shape'),
])
def test_bad_coo_matrices(args, match):
    with pytest.raises(ValueError, match=match):
        CooMatrix(*args)
    with pytest.raises(ValueError, match='order'):
        CooMatrix(np.zeros(1), np.zeros(1, int), np.zeros(1, int), (1, 1), order='X')


def test_to_coo_needs_2d_or_3d():
    with pytest.raises(ValueError, match='2-D or 3-D'):
        to_coo(np.zeros(3, np.float32))
