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
    assert unary.mode is None and len(unary.keys) == 1 and unary[2] == 5
    named = tabular.from_data(('sq', lambda i: i * i), size=4)
    assert named.keys == ('sq',) and list(named) == [0, 1, 4, 9]
    mixed = tabular.from_data(([1, 2], ('y', [3, 4])))
    assert mixed.keys[1] == 'y' and mixed.keys[0].startswith('_')
    dd = tabular.from_data({'x': numpy.zeros(3), 'i': lambda i: -i})
    assert dd.mode is dict and dd[2] == {'x': 0.0, 'i': -2}
    with pytest.raises(ValueError, match='different lengths'):
        tabular.from_data(([1, 2], [1]))
    with pytest.raises(ValueError, match='size'):
        tabular.from_data(('f', lambda i: i))
    with pytest.raises(ValueError, match='needs a key'):
        tabular.from_data(lambda i: i, size=3)


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
    assert c.fetch()[0] == [0, 1, 2, 3, 4, 0, 1]  # rows of several tables: a list
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


class Recorder(TabularDataset):
    """Columns ``k * 100 + row``; remembers every get_examples call."""

    def __init__(self, n=10, keys=('a', 'b', 'c'), mode=tuple, tag=None):
        self.n, self._keys, self._mode, self.tag = n, keys, mode, tag
        self.calls = []

    def __len__(self):
        return self.n

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        data = numpy.arange(len(self._keys))[:, None] * 100 + numpy.arange(self.n)
        if indices is not None:
            data = data[:, indices]
        if key_indices is not None:
            data = data[list(key_indices)]
        return tuple(list(row) for row in data)

    def convert(self, data):
        return self.tag if self.tag is not None else super().convert(data)


def test_views_pass_none_slices_and_lists_down():
    d = Recorder()
    d.fetch()
    assert d.calls.pop() == (None, None)
    d.get_example(3)
    assert d.calls.pop() == ([3], None)
    v = d.slice[2:8:2]
    assert v.fetch() == ([2, 4, 6], [102, 104, 106], [202, 204, 206])
    assert d.calls.pop() == (slice(2, 8, 2), None)
    v.get_examples(slice(None, None, -1), (2,))
    indices, keys = d.calls.pop()
    assert isinstance(indices, slice) and list(range(10)[indices]) == [6, 4, 2] and keys == (2,)
    v.get_examples([0, 2], None)
    assert d.calls.pop() == ([2, 6], None)
    d.slice[:, ('c', 'a')].get_examples(None, (1,))
    assert d.calls.pop() == (slice(0, 10, 1), (0,))
    d.slice[[True] * 3 + [False] * 7].get_examples(slice(1, None), None)
    assert d.calls.pop() == ([1, 2], None)
    d.slice[::-1].get_examples(None, None)
    assert d.calls.pop() == (slice(9, None, -1), None)


def test_slice_rows_forms():
    d = Recorder()
    assert len(d.slice[[]]) == 0 and d.slice[[]].fetch() == ([], [], [])
    mixed = d.slice[[False, numpy.int32(3), True]]  # not all booleans: positions
    assert mixed.fetch()[0] == [0, 3, 1]
    assert d.slice[numpy.array([1, 0])].fetch()[0] == [1, 0]
    with pytest.raises(ValueError):
        d.slice[[True] * 11]
    with pytest.raises(IndexError):
        d.slice[[11]]
    with pytest.raises(TypeError):
        d.slice[[0.5]]
    with pytest.raises(IndexError):
        d.slice[:, 3]
    assert d.slice[:, ()].keys == () and d.slice[:, ()].mode is tuple
    assert Recorder(mode=None, keys=('a',)).slice[:, ('a',)].mode is tuple
    assert Recorder(mode=dict).slice[:, ('a',)].mode is dict


def test_views_use_the_base_convert():
    d = Recorder(tag='mine')
    views = [d.slice[1:], d.slice[:, 'a'], d.astuple(), d.asdict(), d.concat(Recorder()),
             d.join(Recorder(keys=('x',))), d.transform('s', lambda a, b, c: a + b),
             d.transform_batch(('p', 'q'), lambda a, b, c: (a, b)),
             tabular.DelegateDataset(d)]
    for view in views:
        assert view.convert(view.fetch()) == 'mine', type(view).__name__


def test_concat_splits_rows_per_dataset():
    a, b = Recorder(), Recorder(n=5)
    c = a.concat(b)
    c.get_examples(slice(13, 6, -2), None)
    assert a.calls.pop() == (slice(9, 6, -2), None)
    assert b.calls.pop() == (slice(3, None, -2), None)
    out = c.get_examples(slice(8, 14, 3), (1,))
    assert out == ([108, 101],)  # row 8 of a, row 1 of b
    assert a.calls.pop() == (slice(8, 10, 3), (1,))
    assert b.calls.pop() == (slice(1, 4, 3), (1,))
    out = c.get_examples([3, 12, -1, 1], None)
    assert out[0] == [3, 2, 4, 1]
    assert a.calls.pop() == ([3, 1], None) and b.calls.pop() == ([2, 4], None)
    out = c.get_examples([4, 2], None)
    assert out[0] == [4, 2] and a.calls.pop() == ([4, 2], None) and not b.calls
    assert c.get_examples([], None) == ([], [], []) and not a.calls and not b.calls
    c.get_examples(None, None)
    assert a.calls.pop() == (None, None) and b.calls.pop() == (None, None)
    with pytest.raises(IndexError):
        c.get_examples([15], None)


def test_join_asks_each_dataset_for_its_keys_only():
    a, b = Recorder(mode=None, keys=('a',)), Recorder(keys=('d', 'e'), mode=dict)
    j = a.join(b)
    assert j.mode is dict and j.keys == ('a', 'd', 'e')
    assert j.get_examples(None, (2, 0)) == ([100 + i for i in range(10)], list(range(10)))
    assert a.calls.pop() == (None, (0,)) and b.calls.pop() == (None, (1,))
    j.get_examples(slice(1, 3), (1,))
    assert b.calls.pop() == (slice(1, 3), (0,)) and not a.calls
    assert j.get_examples(None, ()) == () and not a.calls and not b.calls
    assert Recorder(mode=None, keys=('a',)).join(Recorder(mode=None, keys=('b',))).mode is tuple


def test_transform_mode_follows_results():
    d = Recorder()
    assert d.transform(('x',), lambda a, b, c: a).mode is None
    assert d.transform('x', lambda a, b, c: (a,)).mode is tuple
    calls = []

    def flip(a, b, c):
        calls.append(a)
        return (a,) if len(calls) % 2 else {'x': a}

    t = d.transform(('x',), flip)
    t.get_examples([0], None)
    with pytest.raises(ValueError, match='same kind'):
        t.get_examples([0], None)
    longer = d.transform_batch('x', lambda a, b, c: a + [0])
    with pytest.raises(ValueError, match='11 rows'):
        longer.get_examples(None, None)
    with pytest.raises(ValueError, match="without the keys \\['y'\\]"):
        d.transform(('x', 'y'), lambda a, b, c: {'x': a})[0]


def test_from_data_callables_giving_several_keys():
    t = tabular.from_data((('a', 'b'), lambda i: (i * i, -i)), size=4)
    assert t.mode is tuple and t.keys == ('a', 'b')
    assert t.slice[[1, 3]].fetch() == ([1, 9], [-1, -3])
    d = tabular.from_data((('a', 'b'), lambda i: {'b': -i, 'a': i * i}), size=4)
    assert d.mode is dict and d[2] == {'a': 4, 'b': -2}
    inner = tabular.from_data((numpy.arange(4), (('b', 'c'), lambda i: {'b': i, 'c': -i})))
    assert inner.mode is tuple and inner.keys[1:] == ('b', 'c') and inner[3][1:] == (3, -3)
    in_dict = tabular.from_data({'a': [5, 6], ('b', 'c'): lambda i: (i, i + 1)})
    assert in_dict.mode is dict and in_dict[1] == {'a': 6, 'b': 1, 'c': 2}
    with pytest.raises(ValueError, match='several keys'):
        tabular.from_data({('b', 'c'): [1, 2]})
    bad = tabular.from_data((('a', 'b'), lambda i: (i,)), size=2)
    with pytest.raises(ValueError, match='tuple of 2 values'):
        bad.fetch()


def test_from_data_unnamed_keys_are_unique():
    first, second = tabular.from_data(numpy.arange(3)), tabular.from_data(numpy.arange(3))
    assert first.keys != second.keys
    pair = tabular.from_data(([1], [2]))
    assert len(set(pair.keys)) == 2
    assert first.join(second).keys == first.keys + second.keys


def test_big_slices_read_views_not_copies():
    column = numpy.arange(1_000_000)
    d = tabular.from_data(('x', column))
    out = d.slice[10::3].slice[::2].fetch()
    assert numpy.shares_memory(out, column) and out[0] == 10 and out[1] == 16
    tail = d.concat(d).slice[999_990:1_000_000].fetch()
    assert numpy.shares_memory(tail, column) and tail.tolist() == list(range(999_990, 1_000_000))
    both = d.concat(d).slice[999_990:1_000_010].fetch()
    assert both == list(range(999_990, 1_000_000)) + list(range(10))
