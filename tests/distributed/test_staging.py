"""Device arrays as MPI buffers: direct with CUDA-aware MPI, through host memory otherwise.

No GPU is needed: a stand-in array type and device play the part of CuPy's.
"""

import warnings

import numpy
import pytest

from catena import backend
from catena.distributed import _arrays, _mpi


class DeviceArray:
    """Looks like a device array: not a NumPy array, exposes the CUDA array interface."""

    __cuda_array_interface__ = {}

    def __init__(self, values):
        self.values = numpy.array(values)


class Device:
    def __init__(self):
        self.synchronized = 0

    def synchronize(self):
        self.synchronized += 1

    def to_numpy(self, array):
        return array.values.copy()

    def __str__(self):
        return '@stand-in'


@pytest.fixture
def device(monkeypatch):
    device = Device()
    monkeypatch.setattr(backend, 'get_device_from_array', lambda array: device)
    monkeypatch.setattr(backend, 'copyto', lambda dst, src: dst.values.__setitem__(..., src))
    monkeypatch.setattr(_arrays, '_staging_warned', False)
    return device


def test_cuda_aware_mpi_gets_the_device_array(device, monkeypatch):
    monkeypatch.setattr(_mpi, 'cuda_aware', lambda: True)
    array = DeviceArray([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with _arrays.mpi_buffer(array, writeback=True) as buffer:
            given = buffer
    assert given is array and device.synchronized == 1


def test_without_cuda_aware_mpi_the_array_goes_through_host_memory(device, monkeypatch):
    monkeypatch.setattr(_mpi, 'cuda_aware', lambda: False)
    array = DeviceArray([1.0, 2.0])
    with pytest.warns(RuntimeWarning, match='not CUDA-aware'):
        with _arrays.mpi_buffer(array, writeback=True) as buffer:
            buffer *= 10  # what MPI would write
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # warned once per process only
        with _arrays.mpi_buffer(array, writeback=False) as buffer:
            buffer[:] = 0  # not copied back
    assert isinstance(buffer, numpy.ndarray)
    numpy.testing.assert_array_equal(array.values, [10.0, 20.0])


def test_python_reductions_always_see_host_memory(device, monkeypatch):
    monkeypatch.setattr(_mpi, 'cuda_aware', lambda: True)
    array = DeviceArray(numpy.ones(3, dtype=numpy.float16))
    with pytest.warns(RuntimeWarning):
        with _arrays.mpi_buffer(array, writeback=True, host_only=True) as buffer:
            buffer += 1
    numpy.testing.assert_array_equal(array.values, [2, 2, 2])


def test_numpy_arrays_are_used_as_they_are():
    array = numpy.arange(4.0)
    with _arrays.mpi_buffer(array, writeback=True) as buffer:
        assert buffer is array
    assert _arrays.mpi_buffer.__wrapped__ is not None
