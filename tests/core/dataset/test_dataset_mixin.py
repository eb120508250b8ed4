import numpy
import pytest

from catena.dataset import DatasetMixin, Iterator


class Squares(DatasetMixin):
    def __len__(self):
        return 6

    def get_example(self, i):
        return i * i


def test_int_slice_list_array_indexing():
    d = Squares()
    assert d[3] == 9
    assert d[1:5:2] == [1, 9]
    assert d[::-1] == [25, 16, 9, 4, 1, 0]
    assert d[-2:] == [16, 25]
    assert d[[0, 5, 2]] == [0, 25, 4]
    assert d[numpy.array([4, 1])] == [16, 1]


def test_missing_methods_raise():
    d = DatasetMixin()
    with pytest.raises(NotImplementedError):
        len(d)
    with pytest.raises(NotImplementedError):
        d[0]


class CountDown(Iterator):
    def __init__(self):
        self.n = 3
        self.finalized = 0

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n

    def finalize(self):
        self.finalized += 1


def test_iterator_protocol_and_context_manager():
    with CountDown() as it:
        assert it.next() == 2
        assert list(it) == [1, 0]
    assert it.finalized == 1
    base = Iterator()
    with pytest.raises(NotImplementedError):
        next(base)
    base.finalize()
    base.serialize(None)
