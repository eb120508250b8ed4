"""links.Parameter: returns its array as a parameter, trains, moves between devices."""

import numpy as np
import pytest

import catena.functions as F
from catena import backend
from catena.links.connection.parameter import Parameter


def test_holds_the_array_and_returns_it():
    array = np.arange(3, dtype=np.float32)
    link = Parameter(array)
    assert link.W.array is array
    assert link() is link.W and link(1, 2, x=3) is link.W
    assert [name for name, _ in link.namedparams()] == ['/W']


def test_gradient_flows_to_the_parameter():
    link = Parameter(np.array([1.0, 2.0], np.float32))
    link.cleargrads()
    F.sum(link() * 3.0).backward()
    np.testing.assert_array_equal(link.W.grad, [3.0, 3.0])


def test_device_of_the_array():
    device = backend.get_device('@fake')
    link = Parameter(device.send_array(np.ones(2, np.float32)))
    assert link.device == device
    link = Parameter(np.ones(2, np.float32))
    link.to_device('@fake')
    assert backend.get_device_from_array(link.W.array) == device


def test_rejects_non_arrays():
    with pytest.raises(TypeError, match='array'):
        Parameter([1.0, 2.0])
