"""catena._batch_split: workload-weighted chunk sizes, scatter and gather of nested values."""

from __future__ import annotations

import collections
import math

import numpy
import pytest

import catena
from catena import _batch_split, backend
from catena.testing._fake_device import FakeArray

_FAKE = backend.get_device('@fake')
_CPU = backend.get_device('@numpy')


def _reference_sizes(batch_size, weights):
    """Largest remainder, written out independently: quotas, floors, then the biggest rests."""
    total = sum(weights)
    quotas = [batch_size * w / total for w in weights]
    sizes = [math.floor(q) for q in quotas]
    rests = sorted(((q - s, -i) for i, (q, s) in enumerate(zip(quotas, sizes))), reverse=True)
    for _, negative_index in rests[:batch_size - sum(sizes)]:
        sizes[-negative_index] += 1
    return sizes


@pytest.mark.parametrize(('batch_size', 'weights', 'expected'), [
    (8, [3, 1], [6, 2]),
    (10, [1, 1, 1], [4, 3, 3]),
    (7, [1, 1, 1, 1], [2, 2, 2, 1]),
    (5, [0.5, 0.3, 0.2], [3, 1, 1]),
    (1, [1, 1], [1, 0]),
    (0, [1, 2], [0, 0]),
    (6, [0, 1], [0, 6]),
    (9, [2.5, 0, 2.5], [5, 0, 4]),
])
def test_split_sizes_rounds_by_largest_remainder(batch_size, weights, expected):
    assert _batch_split.split_sizes(batch_size, weights) == expected


def test_split_sizes_always_sum_to_the_batch_and_match_the_reference():
    rng = numpy.random.default_rng(0)
    for _ in range(200):
        count = int(rng.integers(1, 6))
        weights = [int(w) for w in rng.integers(0, 5, count)]
        if sum(weights) == 0:
            weights[0] = 1
        batch_size = int(rng.integers(0, 40))
        sizes = _batch_split.split_sizes(batch_size, weights)
        assert sum(sizes) == batch_size
        assert sizes == _reference_sizes(batch_size, weights)
        assert all(size == 0 for size, w in zip(sizes, weights) if w == 0)


def test_equal_shares_without_weights():
    assert _batch_split.split_sizes(1, count=2) == [1, 0]
    assert _batch_split.split_sizes(9, count=4) == [3, 2, 2, 2]
    assert _batch_split.split_sizes(8, numpy.array([1.0, 1.0], dtype=numpy.float32)) == [4, 4]


def test_split_bounds_are_contiguous_and_cover_the_batch():
    # The seed's scatter computed a chunk's end as ``i + 1 * per_device`` instead of
    # ``(i + 1) * per_device``: the second of three chunks of 9 was [3, 4).
    assert _batch_split.split_bounds(9, count=3) == [(0, 3), (3, 6), (6, 9)]
    assert _batch_split.split_bounds(8, [3, 1]) == [(0, 6), (6, 8)]
    for batch_size in range(0, 13):
        for count in range(1, 6):
            bounds = _batch_split.split_bounds(batch_size, count=count)
            sizes = _batch_split.split_sizes(batch_size, count=count)
            assert bounds[0][0] == 0 and bounds[-1][1] == batch_size
            assert [stop - start for start, stop in bounds] == sizes
            assert all(bounds[i][1] == bounds[i + 1][0] for i in range(count - 1))


@pytest.mark.parametrize('weights', [[0, 0], [1, -1], [-2, -1], [], [1, float('nan')],
                                     [1, float('inf')]])
def test_bad_weights_raise_value_error_naming_weights(weights):
    with pytest.raises(ValueError, match='weights'):
        _batch_split.split_sizes(8, weights)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match=r'weights\[1\]'):
        _batch_split.split_sizes(8, [1, 'a'])
    with pytest.raises(TypeError, match='weights'):
        _batch_split.split_sizes(8, 'ab')
    with pytest.raises(ValueError, match='2 entries'):
        _batch_split.split_sizes(8, [1, 2, 3], count=2)
    with pytest.raises(ValueError, match='batch_size'):
        _batch_split.split_sizes(-1, [1])
    with pytest.raises(TypeError, match='batch_size'):
        _batch_split.split_sizes(2.0, [1])
    with pytest.raises(ValueError, match='count'):
        _batch_split.split_sizes(2)
    with pytest.raises(TypeError, match='weights'):
        _batch_split.split_sizes(2, numpy.array(1.0))
    with pytest.raises(TypeError, match=r'weights\[0\]'):
        _batch_split.split_sizes(2, [True, 1])


_Pair = collections.namedtuple('_Pair', ['left', 'right'])


def test_scatter_cuts_nested_batched_leaves_and_replicates_the_rest():
    x = numpy.arange(12.0).reshape(4, 3)
    v = catena.Variable(numpy.arange(8.0).reshape(4, 2))
    scalar = numpy.array(2.0)
    marker = object()
    args = (_Pair(x, [v, 'text']), {'s': scalar, 'none': None})
    pieces = _batch_split.scatter(args, {'k': x, 'm': marker}, [_CPU, _FAKE, _FAKE],
                                  [(0, 3), (3, 4), (4, 4)])
    assert pieces[2] is None
    (pair, extra), kwargs = pieces[1]
    assert isinstance(pair, _Pair)
    assert isinstance(pair.left, FakeArray)
    numpy.testing.assert_array_equal(pair.left, x[3:4])
    assert isinstance(pair.right[0], catena.Variable)
    assert pair.right[0].device == _FAKE
    numpy.testing.assert_array_equal(pair.right[0].array, v.array[3:4])
    assert pair.right[1] == 'text'
    assert isinstance(extra['s'], FakeArray) and float(extra['s']) == 2.0
    assert extra['none'] is None
    numpy.testing.assert_array_equal(kwargs['k'], x[3:4])
    assert kwargs['m'] is marker
    (pair0, _), kwargs0 = pieces[0]
    numpy.testing.assert_array_equal(pair0.left, x[:3])
    numpy.testing.assert_array_equal(kwargs0['k'], x[:3])


def test_scatter_along_another_batch_axis():
    x = numpy.arange(24.0).reshape(2, 4, 3)
    pieces = _batch_split.scatter((x,), {}, [_CPU, _CPU], [(0, 1), (1, 4)], batch_dim=1)
    numpy.testing.assert_array_equal(pieces[0][0][0], x[:, :1])
    numpy.testing.assert_array_equal(pieces[1][0][0], x[:, 1:])


def test_scatter_rejects_disagreeing_batch_sizes_and_missing_batches():
    with pytest.raises(ValueError, match=r"args\[0\].*kwargs\['y'\]"):
        _batch_split.scatter((numpy.zeros((4, 2)),), {'y': numpy.zeros((3, 2))},
                             [_CPU, _CPU], [(0, 2), (2, 4)])
    with pytest.raises(ValueError, match='batch axis'):
        _batch_split.find_batch_size((1.0, numpy.array(3.0)), {})


def test_gradient_flows_back_through_scatter_and_gather():
    x = catena.Variable(numpy.arange(6.0).reshape(3, 2))
    pieces = _batch_split.scatter((x,), {}, [_CPU, _FAKE], [(0, 2), (2, 3)])
    outputs = [piece[0][0] * 2.0 for piece in pieces]
    y = _batch_split.gather(outputs, [2, 1], _CPU)
    numpy.testing.assert_array_equal(y.array, 2 * x.array)
    y.grad = numpy.arange(6.0).reshape(3, 2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 2 * numpy.arange(6.0).reshape(3, 2))


def test_gather_keeps_the_nesting_and_weights_scalars_by_chunk_size():
    a0, a1 = numpy.ones((2, 2)), numpy.full((1, 2), 3.0).view(FakeArray)
    out0 = {'y': catena.Variable(a0), 'pair': _Pair(a0, 1.0), 'loss': catena.Variable(
        numpy.array(1.0)), 'none': None, 'tag': 'a'}
    out1 = {'y': catena.Variable(a1), 'pair': _Pair(a1, 4.0), 'loss': catena.Variable(
        numpy.array(4.0).view(FakeArray)), 'none': None, 'tag': 'b'}
    joined = _batch_split.gather([out0, out1], [2, 1], _CPU)
    numpy.testing.assert_array_equal(joined['y'].array, [[1, 1], [1, 1], [3, 3]])
    assert type(joined['y'].array) is numpy.ndarray
    assert isinstance(joined['pair'], _Pair)
    numpy.testing.assert_array_equal(joined['pair'].left, [[1, 1], [1, 1], [3, 3]])
    assert joined['pair'].right == pytest.approx(2.0)
    assert float(joined['loss'].array) == pytest.approx((2 * 1.0 + 1 * 4.0) / 3)
    assert joined['none'] is None and joined['tag'] == 'a'
    summed = _batch_split.gather([out0, out1], [2, 1], _CPU, scalar_reduce='sum')
    assert float(summed['loss'].array) == pytest.approx(5.0)


def test_gather_rejects_different_structures():
    with pytest.raises(ValueError, match='different structures'):
        _batch_split.gather([(numpy.ones(2),), (numpy.ones(2), 1)], [1, 1], _CPU)
    with pytest.raises(ValueError, match='different structures'):
        _batch_split.gather([{'a': 1.0}, {'b': 1.0}], [1, 1], _CPU)
    with pytest.raises(TypeError, match='different kinds'):
        _batch_split.gather([catena.Variable(numpy.ones(2)), numpy.ones(2)], [1, 1], _CPU)
    with pytest.raises(ValueError, match='scalar_reduce'):
        _batch_split.gather([1.0], [1], _CPU, scalar_reduce='max')
