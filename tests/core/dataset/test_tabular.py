import numpy
import pytest

from catena.dataset import DatasetMixin, TabularDataset, tabular


def table():
    return tabular.from_data((('a', numpy.arange(5)), ('b', [10, 11, 12, 13, 14])))


def test_from_data_modes_and_keys():
    d = table()
    assert isinstance(d, TabularDataset) and isinstance(d, DatasetMixin)
    assert len(d) == 5 and d.keys == ('a', 'b') and d.mode is tuple
    assert d[1] == (1, 11)
    assert d[-1] == (4, 14)
    assert d[1:3] == [(1, 11), (2, 12)]
    assert d[[4, 0]] == [(4, 14), (0, 10)]
    with pytest.raises(IndexError):
        d[5]
    unary = tabular.from_data([3, 4, 5])
    assert unary.mode is None and unary.keys == ('_0',) and unary[2] == 5
    named = tabular.from_data(('sq', lambda i: i * i), size=4)
    assert named.keys == ('sq',) and list(named) == [0, 1, 4, 9]
    mixed = tabular.from_data(([1, 2], ('y', [3, 4])))
    assert mixed.keys == ('_0', 'y')
    dd = tabular.from_data({'x': numpy.zeros(3), 'i': lambda i: -i})
    assert dd.mode is dict and dd[2] == {'x': 0.0, 'i': -2}
    with pytest.raises(ValueError, match='different lengths'):
        tabular.from_data(([1, 2], [1]))
    with pytest.raises(ValueError, match='size'):
        tabular.from_data(lambda i: i)


def test_fetch_and_convert():
    d = table()
    a, b = d.fetch()
    numpy.testing.assert_array_equal(a, numpy.arange(5))
    assert b == [10, 11, 12, 13, 14]
    ca, cb = d.convert(d.fetch())
    assert isinstance(cb, numpy.ndarray) and cb.tolist() == b
    as_dict = d.asdict()
    assert as_dict.mode is dict and set(as_dict.fetch()) == {'a', 'b'}
    assert as_dict.astuple()[0] == (0, 10)
    assert d.slice[:, 'a'].fetch().tolist() == [0, 1, 2, 3, 4]


def test_slice():
    d = table()
    rev = d.slice[::-1, 'b']
    assert rev.mode is None and rev.keys == ('b',) and rev[:] == [14, 13, 12, 11, 10]
    masked = d.slice[[True, False, True, False, True], ('b', 0)]
    assert masked.keys == ('b', 'a') and masked[:] == [(10, 0), (12, 2), (14, 4)]
    nested = masked.slice[1:]
    assert nested[:] == [(12, 2), (14, 4)] and nested[-1] == (14, 4)
    assert d.asdict().slice[[3], ('a',)][0] == {'a': 3}
    with pytest.raises(KeyError, match='nope'):
        d.slice[:, 'nope']
    with pytest.raises(ValueError, match='mask'):
        d.slice[[True, False]]
    with pytest.raises(IndexError):
        d.slice[[7]]


def test_concat_and_join():
    d = table()
    c = d.concat(d.slice[:2])
    assert len(c) == 7 and c[5:] == [(0, 10), (1, 11)]
    assert c[[6, 0, 5]] == [(1, 11), (0, 10), (0, 10)]
    assert c.fetch()[0].tolist() == [0, 1, 2, 3, 4, 0, 1]
    with pytest.raises(ValueError, match='same keys'):
        d.concat(d.slice[:, ('b', 'a')])
    j = d.join(tabular.from_data(('c', lambda i: i * 100), size=5))
    assert j.keys == ('a', 'b', 'c') and j[2] == (2, 12, 200)
    assert j.slice[1:3, ('c', 'a')][:] == [(100, 1), (200, 2)]
    with pytest.raises(ValueError, match='distinct keys'):
        d.join(d)
    with pytest.raises(ValueError, match='same length'):
        d.join(tabular.from_data(('z', [1])))


def test_transform_and_transform_batch():
    d = table()
    t = d.transform(('s', 'a'), lambda a, b: {'s': a + b, 'a': a})
    assert t.mode is dict and t[2] == {'s': 14, 'a': 2}
    assert t.slice[:, 's'][:2] == [10, 12]
    u = d.asdict().transform('p', lambda a, b: a * b)
    assert u.mode is None and u[3] == 39
    tb = d.transform_batch(('x', 'y'), lambda a, b: (a * 2, list(reversed(b))))
    assert tb.mode is tuple and tb[0] == (0, 10)  # a batch transform sees only the rows read
    assert tb.fetch()[1] == [14, 13, 12, 11, 10]
    bad = d.transform(('x', 'y'), lambda a, b: a)
    with pytest.raises(ValueError, match='tuple or a dict'):
        bad[0]


def test_with_converter_and_delegate():
    d = table()
    conv = d.with_converter(lambda a, b: (len(a), sum(b)))
    assert conv.convert(conv.fetch()) == (5, 60)
    assert conv[1] == (1, 11)

    class Named(tabular.DelegateDataset):
        pass

    n = Named(d)
    assert n.keys == d.keys and n[4] == (4, 14) and len(n) == 5


def test_abstract_methods():
    base = TabularDataset()
    for attr in ('keys', 'mode'):
        with pytest.raises(NotImplementedError):
            getattr(base, attr)
    with pytest.raises(NotImplementedError):
        base.get_examples(None, None)
