"""catena.iterators.DaliIterator: Chainer's name, refused with the reason."""

import pytest

from catena import iterators
from catena.dataset import iterator


def test_dali_iterator_raises_not_implemented_with_the_reason():
    assert issubclass(iterators.DaliIterator, iterator.Iterator)
    with pytest.raises(NotImplementedError, match='CUDA GPUs only.*MultiprocessIterator'):
        iterators.DaliIterator(pipeline=object(), repeat=False)
