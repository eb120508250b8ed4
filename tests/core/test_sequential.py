import numpy as np
import pytest

import catena.functions as F
from catena import Chain, ChainList, Link, Parameter, Sequential, Variable, backend
from catena.initializers import Constant
from catena.testing._fake_device import FakeArray


class Scale(Link):
    def __init__(self, value=2.0):
        super().__init__()
        with self.init_scope():
            self.w = Parameter(Constant(value), (1,))

    def forward(self, x):
        return x * F.broadcast_to(self.w, x.shape)


class Split(Link):
    def forward(self, x):
        return x, x * 2


def add(a, b):
    return a + b


def names(pairs):
    return [name for name, _ in pairs]


def test_forward_mixes_links_and_functions():
    seq = Sequential(Scale(2.0), F.relu, Scale(3.0))
    x = np.array([[-1.0, 2.0]], dtype=np.float32)
    y = seq(Variable(x))
    np.testing.assert_allclose(y.array, np.maximum(x * 2, 0) * 3)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert seq[0].w.grad is not None and seq[2].w.grad is not None


def test_tuple_outputs_are_spread():
    seq = Sequential(Split(), add)
    y = seq(Variable(np.array([1.0], np.float32)))
    np.testing.assert_allclose(y.array, [3.0])
    assert Sequential(add)(Variable(np.ones(1, np.float32)), 2.0).array[0] == 3.0


def test_empty_sequential_forward_raises():
    with pytest.raises(RuntimeError, match='no layers'):
        Sequential()(1)


def test_children_and_paths_follow_link_order():
    a, b = Scale(), Scale()
    seq = Sequential(a, F.relu, b)
    assert isinstance(seq, ChainList)
    assert len(seq) == 3 and seq[1] is F.relu and list(seq) == [a, F.relu, b]
    assert names(seq.namedparams()) == ['/0/w', '/1/w']
    assert list(seq.children()) == [a, b] and b.name == '1'


def test_list_api():
    a, b, c = Scale(1.0), Scale(2.0), Scale(3.0)
    seq = Sequential(a)
    seq.append(F.relu)
    seq.extend([b, F.tanh])
    assert list(seq) == [a, F.relu, b, F.tanh]
    seq.insert(0, c)
    assert list(seq) == [c, a, F.relu, b, F.tanh]
    assert [link.name for link in seq.children()] == ['0', '1', '2']
    assert seq[1:3] == [a, F.relu] and seq[-1] is F.tanh
    assert seq.pop() is F.tanh and seq.pop(0) is c
    assert list(seq) == [a, F.relu, b] and a.name == '0'
    seq.remove(F.relu)
    assert list(seq) == [a, b]
    with pytest.raises(ValueError, match='not a layer'):
        seq.remove(F.relu)
    seq[1] = F.sigmoid
    assert list(seq) == [a, F.sigmoid] and list(seq.children()) == [a]
    seq[1] = c
    assert list(seq.children()) == [a, c] and c.name == '1'
    seq[0:1] = [F.relu, b]
    assert list(seq) == [F.relu, b, c]
    assert names(seq.namedlinks(skipself=True)) == ['/0', '/1']
    del seq[0]
    assert list(seq) == [b, c]
    del seq[:]
    assert len(seq) == 0 and list(seq.children()) == []
    seq.extend([a, a])
    assert seq.count(a) == 2 and seq.index(a) == 0 and a in seq
    seq.clear()
    assert len(seq) == 0
    with pytest.raises(ValueError, match='link or a callable'):
        seq.append(3)
    with pytest.raises(ValueError, match='link or a callable'):
        seq.insert(0, 'x')


def test_insert_positions_are_checked():
    seq = Sequential(F.relu)
    seq.insert(-1, F.tanh)
    seq.insert(2, F.sigmoid)
    assert list(seq) == [F.tanh, F.relu, F.sigmoid]
    for position in (4, -4):
        with pytest.raises(IndexError, match='cannot insert at position'):
            seq.insert(position, F.relu)


def test_remove_by_layer_type():
    a = Scale()
    seq = Sequential(a, F.relu, Scale(), F.tanh)
    seq.remove_by_layer_type('Scale')
    assert list(seq) == [F.relu, F.tanh] and list(seq.children()) == []


def test_lambda_layers_are_shown_by_source_and_refused_by_pickle():
    import functools
    import pickle

    half = functools.partial(F.leaky_relu, slope=0.5)
    seq = Sequential(F.relu, lambda x: x * 2, half)
    text = repr(seq)
    assert '(0): relu,' in text and '(1): lambda x: x * 2,' in text
    assert f'(2): {half},' in text
    with pytest.raises(ValueError, match='lambda'):
        pickle.dumps(seq)
    assert seq.copy('copy')[1] is seq[1]


def test_add_radd_iadd():
    a, b = Scale(), Scale()
    left = Sequential(a, F.relu)
    right = Sequential(b)
    both = left + right
    assert list(both) == [a, F.relu, b] and len(left) == 2
    assert names(both.namedparams()) == ['/0/w', '/1/w']
    with pytest.raises(ValueError, match='only a Sequential'):
        left + 1
    with pytest.raises(TypeError):
        1 + left
    assert list(right.__radd__(left)) == [a, F.relu, b]
    left += right
    assert list(left) == [a, F.relu, b]
    left += F.tanh
    assert left[-1] is F.tanh
    with pytest.raises(ValueError):
        left += 1


def test_count_by_layer_type():
    seq = Sequential(Scale(), F.relu, Scale(), F.relu, Split())
    assert seq.count_by_layer_type('Scale') == 2
    assert seq.count_by_layer_type('relu') == 2
    assert seq.count_by_layer_type('Split') == 1
    assert seq.count_by_layer_type('Linear') == 0


def test_flatten():
    a, b, c = Scale(), Scale(), Scale()
    nested = Sequential(a, Sequential(F.relu, Sequential(b)), c)
    flat = nested.flatten()
    assert list(flat) == [a, F.relu, b, c]
    assert names(flat.namedparams()) == ['/0/w', '/1/w', '/2/w']


@pytest.mark.parametrize('mode', ['share', 'copy', 'init'])
def test_copy(mode):
    seq = Sequential(Scale(2.0), F.relu)
    seq[0].w.array[...] = 5
    dup = seq.copy(mode)
    assert dup[1] is F.relu and dup[0] is not seq[0]
    if mode == 'share':
        assert dup[0].w.array is seq[0].w.array
    else:
        assert dup[0].w.array is not seq[0].w.array
    expected = 2.0 if mode == 'init' else 5.0
    assert dup[0].w.array[0] == expected


@pytest.mark.parametrize('mode', ['share', 'copy', 'init'])
def test_repeat_holds_copies_of_the_whole_sequential(mode):
    # As Link.repeat in Chainer: each repetition is a copy of the Sequential.
    seq = Sequential(Scale(), F.relu)
    rep = seq.repeat(3, mode=mode)
    assert len(rep) == 3 and all(type(part) is Sequential for part in rep)
    assert all(part is not seq and len(part) == 2 for part in rep)
    scales = [part[0] for part in rep]
    assert all(layer is not seq[0] for layer in scales)
    same = [layer.w.array is seq[0].w.array for layer in scales]
    assert all(same) if mode == 'share' else not any(same)
    assert names(rep.namedparams()) == ['/0/0/w', '/1/0/w', '/2/0/w']
    assert len(seq.repeat(0)) == 0


def test_link_repeat_gives_sequential():
    rep = Scale().repeat(2)
    assert isinstance(rep, Sequential) and len(rep) == 2
    np.testing.assert_allclose(rep(Variable(np.ones(1, np.float32))).array, [4.0])


def test_copyparams_and_device_transfer():
    src = Sequential(Scale(3.0), F.relu, Scale(4.0))
    dst = Sequential(Scale(0.0), F.relu, Scale(0.0))
    dst.to_device('@fake')
    dst.copyparams(src)
    assert isinstance(dst[0].w.array, FakeArray)
    assert float(dst[0].w.array[0]) == 3.0 and float(dst[2].w.array[0]) == 4.0
    assert dst.device == backend.get_device('@fake') and dst[2].device == dst.device


def test_inside_a_chain():
    chain = Chain()
    with chain.init_scope():
        chain.body = Sequential(Scale(), F.relu, Scale())
    assert names(chain.namedparams()) == ['/body/0/w', '/body/1/w']
    shared = chain.copy()
    assert shared.body is not chain.body and shared.body[0].w.array is chain.body[0].w.array
    assert shared.body[1] is F.relu


def test_repr():
    text = repr(Sequential(Scale(), F.relu))
    assert '(0): Scale()' in text and '(1): relu' in text
    assert repr(Sequential()) == 'Sequential()'
