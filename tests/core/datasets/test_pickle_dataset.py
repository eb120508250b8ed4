import io
import os
import pickle

import numpy
import pytest

from catena.datasets import pickle_dataset

EXAMPLES = [1, 'two', (3, 4.5), {'a': [1, 2]}, numpy.arange(6).reshape(2, 3), None, b'']


def test_round_trip(tmp_path):
    path = str(tmp_path / 'data.pkl')
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        for x in EXAMPLES:
            writer.write(x)
        writer.flush()
    with pickle_dataset.open_pickle_dataset(path) as ds:
        assert len(ds) == len(EXAMPLES)
        for i in reversed(range(len(EXAMPLES))):
            got, want = ds[i], EXAMPLES[i]
            if isinstance(want, numpy.ndarray):
                numpy.testing.assert_array_equal(got, want)
            else:
                assert got == want
        assert ds[1:3] == ['two', (3, 4.5)]
        # reopened by path in another process / after pickling
        restored = pickle.loads(pickle.dumps(ds))
        assert restored[3] == {'a': [1, 2]}


@pytest.mark.parametrize('protocol', [0, 2, pickle.HIGHEST_PROTOCOL])
def test_in_memory_stream(protocol):
    buf = io.BytesIO()
    writer = pickle_dataset.PickleDatasetWriter(buf, protocol=protocol)
    for x in EXAMPLES[:4]:
        writer.write(x)
    ds = pickle_dataset.PickleDataset(io.BytesIO(buf.getvalue()))
    assert [ds[i] for i in range(len(ds))] == EXAMPLES[:4]
    restored = pickle.loads(pickle.dumps(ds))
    assert restored[1] == 'two'


def test_file_reader_reopens(tmp_path):
    path = str(tmp_path / 'data.pkl')
    with pickle_dataset.open_pickle_dataset_writer(path) as writer:
        writer.write('x')
        writer.write('y')
    ds = pickle_dataset.open_pickle_dataset(path)
    reader = ds._reader
    old = reader._file
    ds._after_fork()
    assert old.closed and not reader._file.closed
    assert ds[1] == 'y'
    restored = pickle.loads(pickle.dumps(ds))
    assert restored._reader is not reader and restored[0] == 'x'
    ds.close()
    restored.close()


@pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs fork')
def test_forked_child_calls_after_fork():
    buf = io.BytesIO()
    pickle_dataset.PickleDatasetWriter(buf).write(1)
    read_fd, write_fd = os.pipe()

    class Reader(io.BytesIO):
        def after_fork(self):
            os.write(write_fd, b'called')

    ds = pickle_dataset.PickleDataset(Reader(buf.getvalue()))
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(write_fd)
    assert os.read(read_fd, 16) == b'called'
    os.close(read_fd)
    assert ds[0] == 1


class _Boom:
    def __reduce__(self):
        return (_explode, ())


_calls = []


def _explode():
    _calls.append(1)
    return 'exploded'


def test_indexing_does_not_unpickle():
    buf = io.BytesIO()
    writer = pickle_dataset.PickleDatasetWriter(buf)
    writer.write(_Boom())
    writer.write(2)
    ds = pickle_dataset.PickleDataset(io.BytesIO(buf.getvalue()))
    assert len(ds) == 2 and _calls == []
    assert ds[1] == 2 and _calls == []
    assert ds[0] == 'exploded' and _calls == [1]
