"""Bad arguments to public functions and link constructors name the argument."""

import numpy as np
import pytest

import catena.functions as F
import catena.links as L
from catena.utils.type_check import InvalidType

X = np.ones((2, 3), np.float32)
W = np.ones((4, 3), np.float32)


@pytest.mark.parametrize('call, name', [
    (lambda: F.convolution_2d(np.ones((1, 1, 3, 3), np.float32), None), 'W'),
    (lambda: F.linear(X, None), 'W'),
    (lambda: F.relu(None), 'x'),
])
def test_an_input_that_is_not_an_array_is_named(call, name):
    with pytest.raises(InvalidType) as info:
        call()
    message = str(info.value)
    assert f'Expect: {name} (in_types[' in message
    assert f'Actual: {name} is <class' in message


def test_linear_of_none_names_x():
    with pytest.raises(TypeError, match='linear: x must be an array or a Variable; got NoneType'):
        F.linear(None, W)


@pytest.mark.parametrize('make, error, message', [
    (lambda: L.Linear(3, -2), ValueError, 'Linear: out_size must not be negative; got -2'),
    (lambda: L.Linear('a', 2), TypeError, "Linear: in_size must be an int; got 'a'"),
    (lambda: L.Linear(2.0), TypeError, 'Linear: out_size must be an int; got 2.0'),
    (lambda: L.EmbedID(-1, 3), ValueError, 'EmbedID: in_size must not be negative'),
    (lambda: L.Bilinear(2, 2.5, 3), TypeError, 'Bilinear: right_size must be an int'),
    (lambda: L.LSTM(3, -2), ValueError, 'LSTM: out_size must not be negative; got -2'),
    (lambda: L.GRU(True, 3), TypeError, 'GRU: in_size must be an int or None; got True'),
])
def test_link_sizes_are_checked_by_name(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_a_shape_tuple_passes_as_in_chainer():
    assert L.Linear((3, 3)).b.shape == (3, 3)


def test_sizes_of_zero_and_numpy_ints_are_accepted():
    assert L.Linear(np.int64(3), 0).W.shape == (0, 3)
    assert L.EmbedID(np.int32(2), 1).W.shape == (2, 1)
