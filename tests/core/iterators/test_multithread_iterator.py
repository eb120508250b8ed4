import numpy
import pytest

from catena.datasets import TransformDataset
from catena.iterators import MultithreadIterator, SerialIterator


def ids(batch):
    return [int(x) for x in batch]


@pytest.mark.parametrize('n_threads', [1, 3])
def test_matches_serial_iterator(n_threads):
    data = list(range(11))
    numpy.random.seed(5)  # noqa: NPY002
    serial = SerialIterator(data, 4)
    numpy.random.seed(5)  # noqa: NPY002
    threaded = MultithreadIterator(data, 4, n_threads=n_threads)
    with threaded:
        for _ in range(8):
            assert ids(threaded.next()) == ids(serial.next())
            assert threaded.epoch == serial.epoch
            assert threaded.is_new_epoch == serial.is_new_epoch
            assert threaded.epoch_detail == pytest.approx(serial.epoch_detail)


def test_no_repeat_and_finalize_twice():
    it = MultithreadIterator(list(range(5)), 2, repeat=False, shuffle=False, n_threads=2)
    assert [ids(b) for b in it] == [[0, 1], [2, 3], [4]]
    it.finalize()
    it.finalize()


def test_exception_reaches_caller():
    it = MultithreadIterator(TransformDataset([1, 0], lambda v: 1 / v), 2, shuffle=False)
    with pytest.raises(ZeroDivisionError):
        it.next()
    it.finalize()
