import numpy
import pytest

from catena.datasets import ConcatenatedDataset, DictDataset, TransformDataset, TupleDataset


def test_tuple_dataset():
    a, b = numpy.arange(5), [10, 11, 12, 13, 14]
    d = TupleDataset(a, b)
    assert len(d) == 5
    assert d[2] == (2, 12)
    assert d[1:3] == [(1, 11), (2, 12)]
    assert d[[4, 0]] == [(4, 14), (0, 10)]
    assert d[numpy.array([3])] == [(3, 13)]
    with pytest.raises(ValueError, match='dataset 1 has length 2'):
        TupleDataset(a, [1, 2])
    with pytest.raises(ValueError):
        TupleDataset()


def test_dict_dataset():
    d = DictDataset(x=numpy.arange(4), y=['a', 'b', 'c', 'd'])
    assert len(d) == 4
    assert d[1] == {'x': 1, 'y': 'b'}
    assert d[2:] == [{'x': 2, 'y': 'c'}, {'x': 3, 'y': 'd'}]
    assert d[[0, 3]] == [{'x': 0, 'y': 'a'}, {'x': 3, 'y': 'd'}]
    with pytest.raises(ValueError, match="'y' has length 1"):
        DictDataset(x=[1, 2], y=[1])


def test_concatenated_dataset():
    d = ConcatenatedDataset([0, 1], [], numpy.arange(2, 5))
    assert len(d) == 5
    assert [d[i] for i in range(5)] == [0, 1, 2, 3, 4]
    assert d[-1] == 4
    assert d[1:4] == [1, 2, 3]
    with pytest.raises(IndexError):
        d[5]
    assert len(ConcatenatedDataset()) == 0


def test_transform_dataset():
    d = TransformDataset(numpy.arange(4), lambda v: v * 10)
    assert len(d) == 4
    assert d[3] == 30
    assert d[:2] == [0, 10]
