import numpy
import pytest

import catena
from catena.dataset import (
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    converter,
    to_device,
)


def test_concat_arrays():
    batch = [numpy.full((2, 3), i, dtype=numpy.float32) for i in range(4)]
    out = concat_examples(batch)
    assert out.shape == (4, 2, 3) and out.dtype == numpy.float32
    numpy.testing.assert_array_equal(out[:, 0, 0], [0, 1, 2, 3])


def test_concat_tuples_and_scalars():
    batch = [(numpy.arange(3) + i, i) for i in range(2)]
    x, t = concat_examples(batch)
    numpy.testing.assert_array_equal(x, [[0, 1, 2], [1, 2, 3]])
    numpy.testing.assert_array_equal(t, [0, 1])
    assert isinstance(t, numpy.ndarray)


def test_concat_dicts():
    batch = [{'x': numpy.ones(2) * i, 'y': numpy.int32(i)} for i in range(3)]
    out = concat_examples(batch)
    assert set(out) == {'x', 'y'}
    numpy.testing.assert_array_equal(out['x'][:, 1], [0, 1, 2])
    numpy.testing.assert_array_equal(out['y'], [0, 1, 2])


def test_padding():
    batch = [numpy.ones((1, 3), 'i'), numpy.ones((2, 1), 'i') * 2]
    out = concat_examples(batch, padding=-1)
    expected = numpy.array([[[1, 1, 1], [-1, -1, -1]], [[2, -1, -1], [2, -1, -1]]], 'i')
    numpy.testing.assert_array_equal(out, expected)
    assert out.dtype == numpy.int32


def test_padding_per_component():
    batch = [(numpy.arange(1), numpy.arange(2)), (numpy.arange(2), numpy.arange(1))]
    x, y = concat_examples(batch, padding=(7, 9))
    numpy.testing.assert_array_equal(x, [[0, 7], [0, 1]])
    numpy.testing.assert_array_equal(y, [[0, 1], [0, 9]])
    d = concat_examples([{'a': numpy.arange(1)}, {'a': numpy.arange(3)}], padding={'a': 5})
    numpy.testing.assert_array_equal(d['a'], [[0, 5, 5], [0, 1, 2]])


def test_padding_rank_mismatch_and_empty_batch():
    with pytest.raises(ValueError, match='dimensions'):
        concat_examples([numpy.ones(2), numpy.ones((2, 2))], padding=0)
    with pytest.raises(ValueError, match='empty'):
        concat_examples([])


def test_to_device():
    x = numpy.arange(3)
    assert to_device(None, x) is x
    for spec in (-1, '@numpy', catena.get_device('@numpy')):
        y = to_device(spec, (x, [x]))
        assert isinstance(y, tuple) and isinstance(y[1], list)
        numpy.testing.assert_array_equal(y[0], x)
    out = concat_examples([x, x], device='@numpy')
    assert out.shape == (2, 3)


def test_converter_decorator():
    @converter()
    def conv(batch, device=None, scale=1):
        return [b * scale for b in batch], device

    assert isinstance(conv, Converter)
    assert conv([1, 2], None, scale=3) == ([3, 6], None)
    assert isinstance(concat_examples, Converter)
    with pytest.raises(NotImplementedError):
        Converter()([1], None)


def test_concat_with_async_transfer():
    conv = ConcatWithAsyncTransfer()
    batch = [(numpy.ones(2) * i, i) for i in range(3)]
    x, t = conv(batch, '@numpy')
    numpy.testing.assert_array_equal(t, [0, 1, 2])
    x2, _ = conv(batch, catena.get_device('@numpy'))
    numpy.testing.assert_array_equal(x, x2)
    with pytest.raises(ValueError, match='device changed'):
        conv(batch, None)


def test_call_converter_gives_converters_a_device():
    from catena.dataset import convert

    seen = []

    @converter()
    def conv(batch, device):
        seen.append(device)
        return batch

    convert._call_converter(conv, [1], -1)
    convert._call_converter(conv, [1], None)
    assert seen == [catena.get_device('@numpy'), None]
    assert convert._call_converter(lambda b, d: (b, d), [2], 5) == ([2], 5)
    # Old-style converters (plain functions) get Chainer's integer CPU id.
    cpu = catena.get_device('@numpy')
    assert convert._call_converter(lambda b, d: (b, d), [2], cpu) == ([2], -1)


def test_module_level_converter_pickles_by_name():
    import pickle

    restored = pickle.loads(pickle.dumps(concat_examples))
    assert restored is concat_examples

    @converter()
    def local(batch, device=None):
        return batch

    with pytest.raises((AttributeError, pickle.PicklingError)):
        pickle.dumps(local)
