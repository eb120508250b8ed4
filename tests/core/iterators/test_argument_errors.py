"""The iterators refuse bad constructor arguments by name, before starting any worker."""

import numpy as np
import pytest

from catena import iterators

DATASET = list(range(10))


def _cases():
    common = {'dataset': [None, 3], 'batch_size': [0, -1, 'a', 2.5, None],
              'order_sampler': ['a', 3]}
    table = [
        (iterators.SerialIterator, {}, common),
        (iterators.MultithreadIterator, {}, dict(common, n_threads=[0, 'a', 2.5])),
        (iterators.MultiprocessIterator, {'n_processes': 1},
         dict(common, n_processes=[0, 'a', 2.5], n_prefetch=[0, 'a'], shared_mem=[-1, 1.5],
              dataset_timeout=[-1.0, 'a'], maxtasksperchild=[0, 'a'])),
    ]
    for cls, extra, bad in table:
        for name, values in bad.items():
            for value in values:
                yield pytest.param(cls, extra, name, value,
                                   id=f'{cls.__name__}-{name}-{value!r}')


@pytest.mark.parametrize('cls, extra, name, value', list(_cases()))
def test_a_bad_argument_is_named_with_what_came(cls, extra, name, value):
    arguments = dict({'dataset': DATASET, 'batch_size': 2}, **extra)
    arguments[name] = value
    with pytest.raises((TypeError, ValueError)) as info:
        cls(**arguments)
    message = str(info.value)
    assert message.startswith(f'{cls.__name__}: {name} must '), message
    assert message.endswith(f'got {value!r}'), message


@pytest.mark.parametrize('name, value, error, message', [
    ('batch_size', 0, ValueError, 'SerialIterator: batch_size must be a positive int; got 0'),
    ('batch_size', 2.5, TypeError, 'SerialIterator: batch_size must be a positive int; got 2.5'),
    ('dataset', None, TypeError, 'SerialIterator: dataset must support len() and indexing '
                                 '(a list, an array or a dataset); got None'),
    ('order_sampler', 'a', TypeError,
     "SerialIterator: order_sampler must be callable or None; got 'a'"),
])
def test_exact_messages(name, value, error, message):
    arguments = {'dataset': DATASET, 'batch_size': 2, name: value}
    with pytest.raises(error) as info:
        iterators.SerialIterator(**arguments)
    assert str(info.value) == message


@pytest.mark.parametrize('make', [
    lambda: iterators.SerialIterator(np.arange(4), np.int64(2)),
    lambda: iterators.MultithreadIterator(DATASET, 2, n_threads=np.int32(2)),
    lambda: iterators.SerialIterator(DATASET, 2, order_sampler=iterators.ShuffleOrderSampler()),
])
def test_valid_arguments_pass(make):
    iterator = make()
    assert len(iterator.next()) == 2
    finalize = getattr(iterator, 'finalize', None)
    if finalize is not None:
        finalize()
