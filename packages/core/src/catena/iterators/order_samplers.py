"""Order samplers: callables that choose the order in which iterators visit a dataset."""

from __future__ import annotations

from typing import Any

import numpy

_MASK64 = (1 << 64) - 1


def _serialize_value(serializer: Any, key: str, value: Any) -> Any:
    """``serializer(key, value)`` that also works with in-place deserializers."""
    loaded = serializer(key, value)
    return value if loaded is None else loaded


class OrderSampler:
    """Base class of order samplers.

    An iterator calls ``sampler(current_order, current_position)`` at the end
    of every epoch (and once at the start, with ``numpy.arange(len(dataset))``
    and 0) and visits the dataset in the returned order, a 1-D array of
    indices into the dataset. Its length is the epoch's size: usually the
    dataset's, but an order may repeat or leave out examples. Every order
    after the first must have the first one's length.

    A sampler that holds random state may define ``serialize(serializer)``;
    iterators call it so a restored iterator draws the same orders.
    """

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__')

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the sampler's state (default: nothing to save)."""


class ShuffleOrderSampler(OrderSampler):
    """Sampler that returns a new random permutation each epoch.

    Args:
        random_state: A ``numpy.random.RandomState`` or ``numpy.random.Generator``.
            None makes a private RandomState seeded from NumPy's global
            generator, so ``numpy.random.seed`` makes runs reproducible while
            serializing the sampler never touches the global state (Chainer
            draws from the global generator itself).
    """

    def __init__(self, random_state: Any = None) -> None:
        if random_state is None:
            random_state = numpy.random.RandomState(
                numpy.random.randint(0, 2 ** 31 - 1))  # noqa: NPY002 (Chainer seeds globally)
        self._random = random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        return self._random.permutation(len(current_order))

    def serialize(self, serializer: Any) -> None:
        """Saves or loads the state of the random generator."""
        rng = self._random
        if isinstance(rng, numpy.random.RandomState):
            _, keys, pos, has_gauss, gauss = rng.get_state(legacy=True)
            keys = _serialize_value(serializer, 'keys', numpy.array(keys, dtype=numpy.uint32))
            pos = _serialize_value(serializer, 'pos', int(pos))
            has_gauss = _serialize_value(serializer, 'has_gauss', int(has_gauss))
            gauss = _serialize_value(serializer, 'cached_gaussian', float(gauss))
            rng.set_state(('MT19937', numpy.asarray(keys, dtype=numpy.uint32), int(pos),
                           int(has_gauss), float(gauss)))
            return
        if isinstance(rng, numpy.random.Generator):
            self._serialize_bit_generator(rng.bit_generator, serializer)
            return
        raise TypeError(f'ShuffleOrderSampler cannot serialize a {type(rng).__name__}; '
                        'use numpy.random.RandomState or numpy.random.Generator')

    @staticmethod
    def _serialize_bit_generator(bit_generator: Any, serializer: Any) -> None:
        state = bit_generator.state
        kind = state['bit_generator']
        if kind in ('PCG64', 'PCG64DXSM'):
            inner = state['state']
            words = numpy.array([inner['state'] >> 64, inner['state'] & _MASK64,
                                 inner['inc'] >> 64, inner['inc'] & _MASK64], dtype=numpy.uint64)
            words = numpy.asarray(_serialize_value(serializer, 'pcg_words', words))
            has_uint32 = _serialize_value(serializer, 'has_uint32', int(state['has_uint32']))
            uinteger = _serialize_value(serializer, 'uinteger', int(state['uinteger']))
            w = [int(x) for x in words]
            state['state'] = {'state': (w[0] << 64) | w[1], 'inc': (w[2] << 64) | w[3]}
            state['has_uint32'] = int(has_uint32)
            state['uinteger'] = int(uinteger)
        elif kind == 'MT19937':
            inner = state['state']
            key = _serialize_value(serializer, 'keys', numpy.array(inner['key'], numpy.uint32))
            pos = _serialize_value(serializer, 'pos', int(inner['pos']))
            state['state'] = {'key': numpy.asarray(key, dtype=numpy.uint32), 'pos': int(pos)}
        else:
            raise TypeError(f'ShuffleOrderSampler cannot serialize a {kind} generator; '
                            'use PCG64, PCG64DXSM or MT19937')
        bit_generator.state = state
