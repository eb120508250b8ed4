import copy
import pickle
import warnings

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import Chain, ChainList, Link, Parameter, Sequential, Variable, backend
from catena.initializers import Constant
from catena.testing._fake_device import FakeArray


class Affine(Link):
    """W (3, 2) initialized from arange, lazy b, a persistent array and a scalar."""

    def __init__(self, in_size=3, out_size=2):
        super().__init__()
        with self.init_scope():
            w = np.arange(in_size * out_size, dtype=np.float32).reshape(in_size, out_size)
            self.W = Parameter(w)
            self.b = Parameter(Constant(0.5))
        self.add_persistent('mean', np.zeros(out_size, dtype=np.float32))
        self.add_persistent('count', 0)

    def forward(self, x):
        if self.b.array is None:
            self.b.initialize((self.W.shape[1],))
        return F.matmul(x, self.W) + F.broadcast_to(self.b, (x.shape[0], self.W.shape[1]))


class Net(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.enc = Affine()
            self.dec = ChainList(Affine(2, 2), Affine(2, 2))
            self.scale = Parameter(np.ones((1,), dtype=np.float32))

    def forward(self, x):
        h = self.enc(x)
        for layer in self.dec:
            h = layer(h)
        return h * F.broadcast_to(self.scale, h.shape)


class FakeRule:
    def __init__(self, enabled=True):
        self.enabled = enabled


class DictSerializer:
    """Saves into (or loads from) a flat dict keyed by '/'-joined paths."""

    def __init__(self, target, path='', loading=False):
        self.target = target
        self.path = path
        self.loading = loading

    def __getitem__(self, key):
        return DictSerializer(self.target, self.path + key + '/', self.loading)

    def __call__(self, key, value):
        key = self.path + key
        if not self.loading:
            self.target[key] = None if value is None else np.array(value, copy=True)
            return value
        stored = self.target[key]
        if isinstance(value, np.ndarray):
            value[...] = stored
            return value
        if value is None:
            return stored
        return type(value)(stored)


_rng = np.random.default_rng(0)


def random_fill(array):
    array[...] = _rng.standard_normal(array.shape)


def names(pairs):
    return [name for name, _ in pairs]


# ------------------------------------------------------------- registration

def test_init_scope_registers_parameters_only_inside():
    link = Link()
    assert not link.within_init_scope
    with link.init_scope():
        assert link.within_init_scope
        link.W = Parameter(np.zeros((2,), np.float32))
        link.note = 'plain attribute'
    assert not link.within_init_scope
    link.V = Parameter(np.zeros((2,), np.float32))  # outside: a plain attribute, as in Chainer
    assert names(link.namedparams()) == ['/W']
    assert link.W.name == 'W'


def test_add_param_shapes_dtypes_and_lazy():
    link = Link()
    link.add_param('W', (2, 3))
    link.add_param('h', (2,), dtype=np.float64)
    link.add_param('lazy', initializer=Constant(2.0))
    link.add_param('c', (4,), initializer=3)
    assert link.W.shape == (2, 3) and link.W.dtype == np.float32
    assert np.isnan(link.W.array).all()
    assert link.h.dtype == np.float64
    assert link.lazy.array is None
    assert np.array_equal(link.c.array, np.full((4,), 3, np.float32))
    # Parameters are visited in name order, as in Chainer.
    assert names(link.namedparams(include_uninit=False)) == ['/W', '/c', '/h']
    assert names(link.namedparams()) == ['/W', '/c', '/h', '/lazy']
    link.lazy.initialize((2, 2))
    assert np.array_equal(link.lazy.array, np.full((2, 2), 2, np.float32))


def test_add_param_after_to_device():
    link = Link().to_device('@fake')
    link.add_param('W', (2,))
    link.add_param('lazy')
    assert isinstance(link.W.array, FakeArray)
    link.lazy.initialize((3,))
    assert isinstance(link.lazy.array, FakeArray)


def test_legacy_constructor_params():
    link = Link(W=(2, 3), b=((3,), np.float64))
    assert link.W.shape == (2, 3)
    assert link.b.shape == (3,) and link.b.dtype == np.float64


def test_add_param_and_persistent_name_clash():
    link = Affine()
    with pytest.raises(AttributeError, match="'W'"):
        link.add_param('W', (1,))
    with pytest.raises(AttributeError, match="'mean'"):
        link.add_persistent('mean', 1)
    with pytest.raises(AttributeError, match="'count'"):
        link.add_param('count', (1,))


def test_register_persistent():
    link = Link()
    link.x = np.ones(2)
    link.register_persistent('x')
    link.register_persistent('x')
    assert link._persistent == {'x'}
    with pytest.raises(AttributeError, match="'nothing'"):
        link.register_persistent('nothing')
    link.add_param('W', (1,))
    with pytest.raises(AttributeError, match="'W'"):
        link.register_persistent('W')


def test_delattr_unregisters():
    link = Affine()
    del link.W
    del link.mean
    assert names(link.namedparams()) == ['/b']
    assert link._persistent == {'count'}
    chain = Net()
    del chain.enc
    assert [name for name, _ in chain.namedlinks()] == ['/', '/dec', '/dec/0', '/dec/1']


def test_replacing_parameter_by_plain_value_unregisters():
    link = Affine()
    link.W = None
    assert names(link.namedparams()) == ['/b']


def test_chain_link_registration_and_errors():
    chain = Chain()
    with chain.init_scope():
        chain.a = Affine()
    assert chain['a'] is chain.a and chain.a.name == 'a'
    with pytest.raises(AttributeError, match="'a'"):
        chain.add_link('a', Affine())
    chain.attr = 1
    with pytest.raises(AttributeError, match="'attr'"):
        with chain.init_scope():
            chain.attr = Affine()
    with pytest.raises(TypeError, match='non-link'):
        chain.add_link('f', F.relu)
    outside = Affine()
    chain.out = outside  # outside init_scope: not a child
    assert [name for name, _ in chain.namedlinks(skipself=True)] == ['/a']
    chain.a = 'gone'
    assert list(chain.children()) == []


def test_legacy_chain_constructor():
    chain = Chain(x=Affine(), y=Affine())
    assert [name for name, _ in chain.namedlinks()] == ['/', '/x', '/y']


def test_chainlist_refuses_links_in_init_scope_and_non_links():
    chain_list = ChainList()
    with pytest.raises(TypeError, match='init_scope'):
        with chain_list.init_scope():
            chain_list.x = Affine()
    with pytest.raises(TypeError, match='function'):
        chain_list.append(F.relu)
    with chain_list.init_scope():
        chain_list.p = Parameter(np.zeros(1, np.float32))
    chain_list.append(Affine())
    assert names(chain_list.namedparams()) == ['/p', '/0/W', '/0/b']


# ---------------------------------------------------------------- traversal

def test_nested_namedparams_and_links():
    net = Net()
    # A link's own parameters come first, then its children, each in name order.
    assert names(net.namedparams()) == [
        '/scale', '/dec/0/W', '/dec/0/b', '/dec/1/W', '/dec/1/b', '/enc/W', '/enc/b']
    assert [p.name for p in net.params()] == ['scale', 'W', 'b', 'W', 'b', 'W', 'b']
    assert names(net.namedlinks()) == ['/', '/dec', '/dec/0', '/dec/1', '/enc']
    assert names(net.namedlinks(skipself=True)) == ['/dec', '/dec/0', '/dec/1', '/enc']
    assert list(net.links(skipself=True)) == [net.dec, net.dec[0], net.dec[1], net.enc]
    assert list(net.children()) == [net.dec, net.enc]
    assert list(net.dec.children()) == [net.dec[0], net.dec[1]]
    assert list(Affine().children()) == []


def test_chainlist_sequence_api():
    a, b, c = Affine(), Affine(), Affine()
    chain_list = ChainList(a, b)
    assert len(chain_list) == 2 and chain_list[-1] is b and list(chain_list) == [a, b]
    assert chain_list[0:1] == [a]
    chain_list.insert(0, c)
    assert [link.name for link in chain_list] == ['0', '1', '2']
    assert list(chain_list) == [c, a, b]
    del chain_list[0]
    assert list(chain_list) == [a, b] and a.name == '0'
    chain_list[1] = c
    assert list(chain_list) == [a, c] and c.name == '1'
    chain_list.add_link(b)
    assert names(chain_list.namedlinks(skipself=True)) == ['/0', '/1', '/2']
    assert chain_list.index(c) == 1
    assert chain_list.pop() is b and len(chain_list) == 2
    with pytest.raises(TypeError):
        chain_list[0] = 'x'


def test_count_params_warns_for_uninitialized():
    net = Net()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        count = net.count_params()
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3 and all('not initialized' in m for m in messages)
    assert '/dec/0/b' in messages[0] and '/enc/b' in messages[2]
    assert count == 1 + 6 + 4 + 4
    net(Variable(np.ones((1, 3), np.float32)))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert net.count_params() == 1 + 6 + 2 + 4 + 2 + 4 + 2


# ---------------------------------------------------------------- gradients

def _loss(net, x):
    return F.sum(net(Variable(x)))


def test_cleargrads_and_zerograds():
    net = Net()
    _loss(net, np.ones((2, 3), np.float32)).backward()
    assert all(p.grad is not None for p in net.params())
    net.cleargrads()
    assert all(p.grad is None for p in net.params())
    net.add_param('lazy', initializer=1.0)
    with pytest.warns(DeprecationWarning):
        net.zerograds()
    for name, param in net.namedparams(include_uninit=False):
        assert np.array_equal(param.grad, np.zeros_like(param.array)), name
    net.lazy.initialize((2,))
    assert np.array_equal(net.lazy.grad, np.zeros(2, np.float32))


@pytest.mark.parametrize('device', ['@numpy', '@fake'])
def test_addgrads_across_devices(device):
    x = np.ones((2, 3), np.float32)
    dst, src = Net(), Net()
    _loss(dst, x).backward()
    src.to_device(device)
    _loss(src, backend.get_device(device).send_array(x)).backward()
    expected = {name: p.grad * 2 for name, p in dst.namedparams()}
    dst.addgrads(src)
    for name, param in dst.namedparams():
        assert type(param.grad) is np.ndarray
        np.testing.assert_allclose(param.grad, expected[name], err_msg=name)


def test_addgrads_into_empty_gradients():
    dst, src = Affine(), Affine()
    src.W.grad = np.full((3, 2), 2, np.float32)
    dst.addgrads(src)
    assert np.array_equal(dst.W.grad, src.W.grad) and dst.W.grad is not src.W.grad
    assert dst.b.array is None


def test_addgrads_structure_mismatch():
    with pytest.raises(ValueError, match='W'):
        Affine().addgrads(Link())
    with pytest.raises(ValueError, match='children'):
        ChainList(Affine()).addgrads(ChainList())
    with pytest.raises(TypeError, match='Link'):
        Affine().addgrads(object())


@pytest.mark.parametrize('src_device', ['@numpy', '@fake'])
@pytest.mark.parametrize('dst_device', ['@numpy', '@fake'])
def test_copyparams_across_devices(src_device, dst_device):
    src, dst = Net(), Net()
    for i, param in enumerate(src.params(include_uninit=False)):
        param.array[...] = i + 10
    src.enc.mean[...] = 7
    src.enc.count = 3
    src.to_device(src_device)
    dst.to_device(dst_device)
    dst_arrays = [p.array for p in dst.params(include_uninit=False)]
    dst.copyparams(src)
    for i, param in enumerate(dst.params(include_uninit=False)):
        assert param.array is dst_arrays[i]  # copied in place
        assert (np.asarray(param.array) == i + 10).all()
    assert dst.device == backend.get_device(dst_device)
    assert (np.asarray(dst.enc.mean) == 7).all() and dst.enc.count == 3


def test_copyparams_without_persistent():
    src, dst = Affine(), Affine()
    src.mean[...] = 1
    src.count = 5
    dst.copyparams(src, copy_persistent=False)
    assert (dst.mean == 0).all() and dst.count == 0


# ---------------------------------------------------------------- updates

def test_enable_disable_update():
    net = Net()
    assert not net.update_enabled  # no update rules yet
    for param in net.params():
        param.update_rule = FakeRule()
    assert net.update_enabled
    net.enc.disable_update()
    assert not net.enc.update_enabled and net.dec.update_enabled
    net.disable_update()
    assert not net.update_enabled
    assert not any(p.update_rule.enabled for p in net.params())
    net.dec[0].enable_update()
    assert net.update_enabled and net.dec[0].update_enabled and not net.enc.update_enabled


# ------------------------------------------------------------------- copies

def test_copy_share():
    net = Net()
    net.enc.W.grad = np.ones((3, 2), np.float32)
    net.scale.update_rule = FakeRule()
    shared = net.copy()
    assert shared.name is None
    assert shared is not net and shared.enc is not net.enc and shared.dec[1] is not net.dec[1]
    assert shared.enc.name == 'enc' and shared.dec[1].name == '1'
    assert names(shared.namedparams()) == names(net.namedparams())
    for (name, a), (_, b) in zip(net.namedparams(), shared.namedparams(), strict=True):
        assert a is not b, name
        assert a.array is b.array, name
    assert shared.enc.W.grad is None and shared.scale.update_rule is None
    assert shared.enc.mean is net.enc.mean
    net.enc.W.array[0, 0] = 100
    assert shared.enc.W.array[0, 0] == 100
    shared.dec.append(Affine(2, 2))
    assert len(net.dec) == 2  # the structure is not shared


def test_copy_copy():
    net = Net()
    net.dec[0].W.array[...] = 4
    copied = net.copy(mode='copy')
    for (name, a), (_, b) in zip(net.namedparams(), copied.namedparams(), strict=True):
        assert a is not b, name
        if a.array is not None:
            assert a.array is not b.array and np.array_equal(a.array, b.array), name
    assert (copied.dec[0].W.array == 4).all()
    assert copied.enc.mean is not net.enc.mean
    net.enc.W.array[...] = -1
    assert not (copied.enc.W.array == -1).any()


def test_copy_init_reinitializes():
    link = Link()
    link.add_param('W', (20,), initializer=random_fill)
    link.W.array[...] = 0
    fresh = link.copy(mode='init')
    assert (link.W.array == 0).all()
    assert not (fresh.W.array == 0).all()  # drawn again from the initializer


def test_copy_init_uses_initializer_and_keeps_device():
    link = Link()
    link.add_param('W', (2, 2), initializer=Constant(3.0))
    link.add_param('lazy', initializer=Constant(1.0))
    link.W.array[...] = 0
    link.to_device('@fake')
    fresh = link.copy(mode='init')
    assert isinstance(fresh.W.array, FakeArray)
    assert (np.asarray(fresh.W.array) == 3).all()
    assert fresh.lazy.array is None
    assert fresh.device == backend.get_device('@fake')


def test_copy_bad_mode():
    with pytest.raises(ValueError, match="'share', 'copy' or 'init'"):
        Affine().copy(mode='deep')
    with pytest.raises(ValueError, match='mode'):
        Affine().repeat(2, mode='deep')


@pytest.mark.parametrize('mode', ['init', 'copy', 'share'])
def test_repeat(mode):
    link = Link()
    link.add_param('W', (3,), initializer=random_fill)
    seq = link.repeat(3, mode=mode)
    assert isinstance(seq, Sequential) and len(seq) == 3
    arrays = [layer.W.array for layer in seq]
    assert all(layer is not link for layer in seq)
    if mode == 'share':
        assert all(array is link.W.array for array in arrays)
    else:
        assert len({id(array) for array in arrays + [link.W.array]}) == 4
    if mode == 'copy':
        assert all(np.array_equal(array, link.W.array) for array in arrays)
    if mode == 'init':
        assert not np.array_equal(arrays[0], arrays[1])
    assert len(link.repeat(0)) == 0


def test_deepcopy_and_pickle():
    net = Net()
    net(Variable(np.ones((1, 3), np.float32)))
    clone = pickle.loads(pickle.dumps(net))
    for (name, a), (_, b) in zip(net.namedparams(), clone.namedparams(), strict=True):
        assert np.array_equal(a.array, b.array), name
    deep = copy.deepcopy(net)
    assert deep.enc.W.array is not net.enc.W.array


# ------------------------------------------------------------ serialization

def test_serialize_round_trip_with_lazy_param():
    src = Net()
    src(Variable(np.ones((1, 3), np.float32)))
    for i, param in enumerate(src.params()):
        param.array[...] = i
    src.enc.mean[...] = 9
    src.enc.count = 4
    store = {}
    src.serialize(DictSerializer(store))
    assert sorted(store) == sorted(
        ['scale', 'enc/W', 'enc/b', 'enc/mean', 'enc/count', 'dec/0/W', 'dec/0/b', 'dec/0/mean',
         'dec/0/count', 'dec/1/W', 'dec/1/b', 'dec/1/mean', 'dec/1/count'])
    dst = Net()
    assert dst.enc.b.array is None
    dst.serialize(DictSerializer(store, loading=True))
    for (name, a), (_, b) in zip(src.namedparams(), dst.namedparams(), strict=True):
        assert np.array_equal(a.array, b.array), name
    assert (dst.enc.mean == 9).all() and dst.enc.count == 4


# ------------------------------------------------------------------ devices

def test_to_device_moves_params_persistents_and_children():
    net = Net()
    net.enc.W.grad = np.ones((3, 2), np.float32)
    net.enc.add_persistent('step', np.float32(2))
    assert net.to_device('@fake') is net
    for link in net.links():
        assert link.device == backend.get_device('@fake')
        assert link.xp is not np
    for name, param in net.namedparams(include_uninit=False):
        assert isinstance(param.array, FakeArray), name
    assert isinstance(net.enc.W.grad, FakeArray)
    assert isinstance(net.enc.mean, FakeArray) and net.enc.count == 0
    assert type(net.enc.step) is np.float32
    y = net(Variable(backend.get_device('@fake').send_array(np.ones((2, 3), np.float32))))
    assert isinstance(y.array, FakeArray)
    assert isinstance(net.enc.b.array, FakeArray)  # lazily initialized on the link's device
    with pytest.warns(DeprecationWarning, match='to_device'):
        net.to_cpu()
    assert net.device == backend.get_device('@numpy') and net.xp is np
    for name, param in net.namedparams():
        assert type(param.array) is np.ndarray, name
    assert type(net.enc.mean) is np.ndarray


def test_to_intel64_and_to_gpu():
    link = Affine()
    try:
        target = backend.get_device('@intel64')
    except Exception:  # noqa: BLE001 - the plugin is optional
        target = None
    if target is not None:
        with pytest.warns(DeprecationWarning):
            assert link.to_intel64().device == target
    with pytest.raises(Exception, match='cupy|cuda|CUDA'):
        if catena.cuda.available:
            pytest.skip('a GPU is available')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            link.to_gpu()


# ------------------------------------------------------------------- calling

def test_call_runs_forward_and_base_forward_raises():
    net = Net()
    y = net(Variable(np.ones((2, 3), np.float32)))
    assert y.shape == (2, 2)
    with pytest.raises(AttributeError, match='Link has no forward method'):
        Link()(1)


def test_call_falls_back_to_a_mixin_call():
    class CallMixin:
        def __call__(self, x):
            return ('mixin', x)

    class Injected(Link, CallMixin):
        pass

    assert Injected()(3) == ('mixin', 3)


def test_missing_init_call_is_reported():
    class NoInit(Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    for action in (lambda link: link(1), lambda link: link.init_scope().__enter__(),
                   lambda link: link.add_param('p', (1,))):
        with pytest.raises(RuntimeError, match=r'^Link\.__init__\(\) has not been called\.$'):
            action(NoInit())


def test_device_methods_overrides():
    with pytest.raises(TypeError, match='to_device'):
        class Final(Link):
            def to_device(self, device):
                return self

    with pytest.warns(DeprecationWarning, match='to_cpu'):
        class Legacy(Link):
            calls = 0

            def to_cpu(self):
                type(self).calls += 1
                return super().to_cpu()

    parent = catena.Chain()
    with parent.init_scope():
        parent.child = Legacy()
    parent.to_device('@numpy')  # the overridden method runs for the child
    assert Legacy.calls == 1


def test_copy_modes_keep_or_drop_the_name():
    link = Affine()
    link.name = 'a'
    assert link.copy('share').name is None
    assert link.copy('copy').name == 'a'
    assert link.copy('init').name == 'a'


def test_gradients_of_copies():
    link = Link()
    with link.init_scope():
        link.w = Parameter(np.ones(2, np.float32))
        link.lazy = Parameter()
    link.w.grad = np.ones(2, np.float32)
    shared = link.copy('share')
    assert shared.w.grad is None  # share mode: no gradient
    shared.lazy.initialize((2,))
    assert link.lazy.array is shared.lazy.array  # the array is shared, even a later one
    copied = link.copy('copy')
    copied.lazy.initialize((2,))
    assert np.isnan(copied.lazy.grad).all()  # a copy is initialized with a NaN gradient
    np.testing.assert_array_equal(copied.w.grad, link.w.grad)  # gradients are copied


def test_repr():
    assert repr(Affine()) == 'Affine()'
    text = repr(Net())
    assert '(enc): Affine()' in text and '(dec): ChainList(' in text and '(1): Affine()' in text
