"""One test per hook: a small fake plugin implements it and the core uses its result.

The plugins are served through fake entry points (``importlib.metadata`` is
monkeypatched, nothing is installed); the installed plugins are left out, and
the real plugin state is restored afterwards.
"""

import contextlib
import io
import types

import numpy as np
import pytest

import catena
from catena import Fallback, FunctionNode, Variable, backend, hookimpl, hookspec
from catena.backends import Device, Kernel, _registry
from catena.plugins import _manager
from catena.testing import plugins
from catena.testing._fake_device import FakeArray, FakeDevice
from catena.testing.plugins import FakeEntryPoint

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


@pytest.fixture
def load_plugins(monkeypatch):
    """Returns ``load(name=plugin, ...)``: reloads catena's plugins with only these."""
    monkeypatch.delenv('CATENA_DISABLE_PLUGIN_AUTOLOAD', raising=False)
    monkeypatch.delenv('CATENA_PLUGINS', raising=False)

    def load(**named_plugins):
        plugins.install_entry_points(monkeypatch, *(
            FakeEntryPoint(name, plugin, dist='catena-test-plugin', version='1.0')
            for name, plugin in named_plugins.items()))
        return _manager.load()

    yield load
    _manager.reset_for_testing()


class ToyArray(np.ndarray):
    """An array on the test's '@toy' device."""


class ToyNativeDevice:
    """A backend's own device object, as cupy.cuda.Device is for '@cupy'."""

    def __init__(self, index):
        self.index = index


class ToyDevice(Device):
    prefix = '@toy'
    supported_array_types = (ToyArray,)

    def __init__(self, index=0):
        self.index = index

    @classmethod
    def parse(cls, rest):
        return cls(0 if rest is None else int(rest))

    @classmethod
    def from_array(cls, array):
        return cls(0)

    @classmethod
    def from_native(cls, device):
        return cls(device.index) if isinstance(device, ToyNativeDevice) else None

    @property
    def name(self):
        return f'{self.prefix}:{self.index}'

    @property
    def xp(self):
        return np

    def send_array(self, array):
        return np.array(backend.get_device_from_array(array).to_numpy(array)).view(ToyArray)


class GoneDevice(Device):
    prefix = '@gone'
    supported_array_types = ()

    @classmethod
    def unavailable_reason(cls):
        return 'the gone hardware is not present'


class Scale(FunctionNode):
    """y = 2 x, with a generic forward that works on any array module."""

    generic_calls = 0

    def forward(self, inputs):
        Scale.generic_calls += 1
        x, = inputs
        return backend.get_array_module(x).multiply(x, 2, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


# ---------------------------------------------------------------------------
# Initialisation
# ---------------------------------------------------------------------------


class ToySpecs:
    """Hook specifications that a plugin adds through catena_addhooks."""

    @hookspec
    def catena_toy_models() -> list:
        """:return: model names."""


def test_hook_catena_addhooks(load_plugins):
    calls = []

    class Extensible:
        @hookimpl
        def catena_addhooks(self, pluginmanager):
            calls.append(pluginmanager)
            pluginmanager.add_hookspecs(ToySpecs)

    class SubPlugin:
        @hookimpl
        def catena_toy_models(self):
            return ['resnet-toy']

    pm = load_plugins(extensible=Extensible(), sub=SubPlugin())
    assert calls == [pm]
    assert pm.hook.catena_toy_models() == [['resnet-toy']]
    assert _manager.call_each('catena_toy_models') == [('sub', ['resnet-toy'])]

    # Historic: a plugin registered after loading still gets the call.
    late_calls = []

    class Late:
        @hookimpl
        def catena_addhooks(self, pluginmanager):
            late_calls.append(pluginmanager)

    pm.register(Late(), name='late')
    assert late_calls == [pm]


# ---------------------------------------------------------------------------
# Devices and kernels
# ---------------------------------------------------------------------------


def test_hook_catena_register_device_types(load_plugins):
    class ToyPlugin:
        @hookimpl
        def catena_register_device_types(self):
            return [ToyDevice, GoneDevice]

    load_plugins(toy=ToyPlugin())
    assert _registry.device_types_by_prefix['@toy'] is ToyDevice
    device = catena.get_device('@toy:3')
    assert isinstance(device, ToyDevice) and str(device) == '@toy:3'
    array = device.send_array(np.arange(3.0))
    assert type(array) is ToyArray
    assert backend.get_device_from_array(array) == ToyDevice(0)
    assert ToyArray in catena.get_array_types()
    assert backend.get_array_module(array) is np
    with pytest.raises(RuntimeError, match='the gone hardware is not present'):
        catena.get_device('@gone')
    # The built-in devices are still there.
    assert str(catena.get_device('@numpy')) == '@numpy'
    assert str(catena.get_device('@fake')) == '@fake'


def test_hook_catena_register_device_types_conflicting_prefix(load_plugins):
    class Impostor(Device):
        prefix = '@toy'

    class First:
        @hookimpl
        def catena_register_device_types(self):
            return [ToyDevice]

    class Second:
        @hookimpl
        def catena_register_device_types(self):
            return [Impostor]

    load_plugins(first=First(), second=Second())
    assert _registry.device_types_by_prefix['@toy'] in (ToyDevice, Impostor)
    assert any("'@toy'" in problem and 'ignored' in problem for problem in _registry.problems)


def test_get_device_accepts_a_backends_own_device_object(load_plugins):
    class DevicePlugin:
        @hookimpl
        def catena_register_device_types(self):
            return [ToyDevice]

    load_plugins(toy=DevicePlugin())
    assert backend.get_device(ToyNativeDevice(3)).name == '@toy:3'
    with pytest.raises(TypeError, match='cupy.cuda.Device'):
        backend.get_device(object())


def test_hook_catena_register_kernels(load_plugins):
    """A @fake kernel serves @fake arrays, may decline, and never sees @numpy arrays."""
    calls = []

    def fake_scale(node, inputs):
        x, = inputs
        assert type(x) is FakeArray, 'a @fake kernel received a non-@fake array'
        if x.dtype != np.float32:
            calls.append('declined')
            return Fallback
        calls.append('used')
        node.retain_inputs(())
        return (x * np.float32(2)).view(FakeArray),

    class KernelPlugin:
        @hookimpl
        def catena_register_kernels(self):
            return [Kernel(Scale, FakeDevice, fake_scale)]

    load_plugins(kernels=KernelPlugin())
    assert _registry.kernels[(Scale, FakeArray)].forward is fake_scale
    assert (Scale, np.ndarray) not in _registry.kernels
    fake = catena.get_device('@fake')

    # @fake float32: the kernel computes the result; the generic forward does not run.
    Scale.generic_calls = 0
    x = Variable(fake.send(np.arange(3, dtype=np.float32)))
    y, = Scale().apply((x,))
    assert calls == ['used'] and Scale.generic_calls == 0
    assert type(y.array) is FakeArray
    np.testing.assert_array_equal(y.array.view(np.ndarray), [0, 2, 4])
    y.grad = fake.send(np.ones(3, np.float32))
    y.backward()
    np.testing.assert_array_equal(x.grad.view(np.ndarray), [2, 2, 2])

    # @fake float64: the kernel declines with Fallback and the generic path runs.
    calls.clear()
    y, = Scale().apply((Variable(fake.send(np.arange(3, dtype=np.float64))),))
    assert calls == ['declined'] and Scale.generic_calls == 1
    assert type(y.array) is FakeArray
    np.testing.assert_array_equal(y.array.view(np.ndarray), [0, 2, 4])

    # @numpy: never the @fake kernel, whatever the dtype.
    calls.clear()
    for dtype in (np.float32, np.float64):
        y, = Scale().apply((Variable(np.arange(3, dtype=dtype)),))
        assert type(y.array) is np.ndarray
        np.testing.assert_array_equal(y.array, [0, 2, 4])
    assert calls == [] and Scale.generic_calls == 3


@contextlib.contextmanager
def _toy_kernels(load_plugins, *kernels):
    """Loads a plugin with these kernels and the configuration key ``toy_kernels``
    (default ``'auto'``), which is removed again on exit."""
    class KernelPlugin:
        @hookimpl
        def catena_config_defaults(self):
            return {'toy_kernels': 'auto'}

        @hookimpl
        def catena_register_kernels(self):
            return list(kernels)

    load_plugins(kernels=KernelPlugin())
    try:
        yield
    finally:
        del catena.global_config.toy_kernels


def test_hook_catena_register_kernels_gated_by_config(load_plugins):
    calls = []

    def fake_scale(node, inputs):
        calls.append(catena.config.toy_kernels)
        return (inputs[0] * 2).view(FakeArray),

    with _toy_kernels(load_plugins, Kernel(Scale, FakeDevice, fake_scale,
                                           config_key='toy_kernels')):
        x = FakeDevice().send_array(np.ones(2, np.float32))
        Scale().apply((x,))
        with catena.using_config('toy_kernels', 'never'):
            Scale().apply((x,))
        with catena.using_config('toy_kernels', 'always'):
            Scale().apply((x,))
        assert calls == ['auto', 'always']


def test_kernel_auto_min_size_skips_small_calls_under_auto_only(load_plugins):
    calls = []

    def fake_scale(node, inputs):
        calls.append(inputs[0].size)
        return (inputs[0] * 2).view(FakeArray),

    with _toy_kernels(load_plugins, Kernel(Scale, FakeDevice, fake_scale,
                                           config_key='toy_kernels', auto_min_size=4)):
        small, large = (FakeDevice().send_array(np.ones(n, np.float32)) for n in (3, 4))
        for x in (small, large):
            y, = Scale().apply((x,))
            np.testing.assert_array_equal(y.array.view(np.ndarray), np.full(x.size, 2))
        with catena.using_config('toy_kernels', 'always'):
            Scale().apply((small,))
        with catena.using_config('toy_kernels', 'never'):
            Scale().apply((large,))
        assert calls == [4, 3]


def test_hook_catena_register_kernels_for_an_update_rule(load_plugins):
    """A kernel registered for an UpdateRule class replaces its update, may decline,
    is gated by its configuration key, and never serves a user's subclass."""
    from catena.optimizers.sgd import SGDRule

    calls = []

    def fused_sgd(rule, inputs):
        param, = inputs
        assert type(param.array) is FakeArray
        if param.dtype != np.float32:
            calls.append('declined')
            return Fallback
        calls.append('used')
        param.array[...] = param.array - np.float32(10) * param.grad
        return None

    fake = FakeDevice()
    with _toy_kernels(load_plugins, Kernel(SGDRule, FakeDevice, fused_sgd,
                                           config_key='toy_kernels')):
        def updated(rule_class, dtype):
            param = catena.Parameter(fake.send(np.ones(2, dtype)))
            param.grad = fake.send(np.full(2, 0.5, dtype))
            rule = rule_class()
            rule.hyperparam.lr = 0.1
            rule.update(param)
            return param.array.view(np.ndarray).tolist()

        generic = pytest.approx([0.95, 0.95])
        assert updated(SGDRule, np.float32) == [-4.0, -4.0]  # the kernel's lr of 10
        assert updated(SGDRule, np.float64) == generic  # declined
        with catena.using_config('toy_kernels', 'never'):
            assert updated(SGDRule, np.float32) == generic

        class MySGDRule(SGDRule):
            pass

        assert updated(MySGDRule, np.float32) == generic
        assert calls == ['used', 'declined']


def test_hook_catena_register_kernels_unknown_device_is_a_problem(load_plugins):
    class KernelPlugin:
        @hookimpl
        def catena_register_kernels(self):
            return [Kernel(Scale, ToyDevice, lambda node, inputs: inputs)]

    load_plugins(kernels=KernelPlugin())
    assert not any(key[0] is Scale for key in _registry.kernels)
    problem, = [p for p in _registry.problems if 'Scale' in p]
    assert "'kernels'" in problem and 'ToyDevice' in problem and 'unknown device' in problem
    out = io.StringIO()
    catena.print_runtime_info(out)
    assert f'Problems:\n  {problem}\n' in out.getvalue()


def test_hook_catena_backend_modules(load_plugins):
    module = types.ModuleType('toy_cuda')
    module.available = True
    module.marker = 'served by the toy plugin'

    class ModulePlugin:
        @hookimpl
        def catena_backend_modules(self):
            return {'cuda': module}

    load_plugins(modules=ModulePlugin())
    assert _registry.backend_modules['cuda'] is module
    import catena.backends.cuda as cuda

    assert cuda.marker == 'served by the toy plugin'
    assert cuda.available is True


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------


def test_hook_catena_config_defaults(load_plugins):
    class ConfigPlugin:
        @hookimpl
        def catena_config_defaults(self):
            return {'toy_level': 'auto', 'train': 'overridden?'}

    load_plugins(config=ConfigPlugin())
    try:
        assert catena.config.toy_level == 'auto'
        assert catena.global_config.toy_level == 'auto'
        assert catena.config.train is True  # a core key is never overridden
        with catena.using_config('toy_level', 'never'):
            assert catena.config.toy_level == 'never'
        assert catena.config.toy_level == 'auto'
    finally:
        del catena.global_config.toy_level
    with pytest.raises(AttributeError, match='no_such_key'):
        catena.config.no_such_key


# ---------------------------------------------------------------------------
# Models and training (the core only stores these for now)
# ---------------------------------------------------------------------------


def test_hook_catena_register_links(load_plugins):
    class ToyLayers:
        pass

    class LinksPlugin:
        @hookimpl
        def catena_register_links(self):
            return {'ToyLayers': ToyLayers}

    load_plugins(links=LinksPlugin())
    assert _manager.call_each('catena_register_links') == [('links', {'ToyLayers': ToyLayers})]


def _saved_link_modules(*names):
    """Removes catena.links.<name> from sys.modules and catena.links; returns a restorer."""
    import sys

    import catena.links

    saved = {name: (sys.modules.pop(f'catena.links.{name}', None),
                    vars(catena.links).pop(name.split('.')[0], None)) for name in names}

    def restore():
        for name, (module, attribute) in saved.items():
            sys.modules.pop(f'catena.links.{name}', None)
            if module is not None:
                sys.modules[f'catena.links.{name}'] = module
            vars(catena.links).pop(name.split('.')[0], None)
            if attribute is not None:
                vars(catena.links)[name.split('.')[0]] = attribute

    return restore


def test_hook_catena_register_link_modules(load_plugins):
    import importlib

    caffe = types.ModuleType('toy_caffe')
    caffe.__path__ = []  # a package, as a plugin's Caffe importer is
    caffe_function = types.ModuleType('toy_caffe.caffe_function')
    caffe_function.CaffeFunction = object
    caffe.caffe_function = caffe_function

    class LinkModulesPlugin:
        @hookimpl
        def catena_register_link_modules(self):
            return {'caffe': caffe, 'caffe.caffe_function': caffe_function}

    load_plugins(link_modules=LinkModulesPlugin())
    assert _manager.call_each('catena_register_link_modules') == [
        ('link_modules', {'caffe': caffe, 'caffe.caffe_function': caffe_function})]
    restore = _saved_link_modules('caffe', 'caffe.caffe_function')
    try:
        # The core's module catena/links/caffe.py gives way to the plugin's module.
        assert importlib.import_module('catena.links.caffe') is caffe
        assert importlib.import_module('catena.links.caffe.caffe_function') is caffe_function
        from catena.links.caffe.caffe_function import CaffeFunction
        assert CaffeFunction is object
    finally:
        restore()


def test_link_module_without_a_plugin_is_an_import_error(load_plugins):
    import importlib
    import sys

    import catena.links.model

    load_plugins()
    saved = sys.modules.pop('catena.links.model.vision', None), vars(catena.links.model).pop(
        'vision', None)
    try:
        with pytest.raises(ImportError, match='no installed plugin provides '
                                              'catena.links.model.vision') as info:
            importlib.import_module('catena.links.model.vision')
        assert info.value.name == 'catena.links.model.vision'
        assert 'catena.links.model.vision' not in sys.modules
    finally:
        for namespace, key, value in ((sys.modules, 'catena.links.model.vision', saved[0]),
                                      (vars(catena.links.model), 'vision', saved[1])):
            if value is not None:
                namespace[key] = value


def test_hook_catena_register_communicators(load_plugins):
    def toy_communicator(*args, **kwargs):
        return ('toy', args, kwargs)

    class CommunicatorPlugin:
        @hookimpl
        def catena_register_communicators(self):
            return {'toy_nccl': toy_communicator}

    load_plugins(comm=CommunicatorPlugin())
    (name, factories), = _manager.call_each('catena_register_communicators')
    assert name == 'comm'
    assert factories['toy_nccl'](1, x=2) == ('toy', (1,), {'x': 2})


def test_hook_catena_register_exporters(load_plugins, monkeypatch):
    import importlib
    import sys
    import types

    import catena.exporters

    toy = types.ModuleType('toy_exporter')
    toy.export = lambda model, args, directory=None: ('exported', model, args, directory)

    class ExporterPlugin:
        @hookimpl
        def catena_register_exporters(self):
            return {'toy': toy, 'caffe': toy}

    load_plugins(exporters=ExporterPlugin())
    assert _manager.call_each('catena_register_exporters') == [
        ('exporters', {'toy': toy, 'caffe': toy})]
    monkeypatch.delitem(vars(catena.exporters), 'toy', raising=False)
    assert catena.exporters.toy is toy
    monkeypatch.delitem(vars(catena.exporters), 'toy')
    # The core's own module catena.exporters.caffe forwards to the plugin's.
    saved = sys.modules.pop('catena.exporters.caffe', None), vars(catena.exporters).pop(
        'caffe', None)
    try:
        caffe = importlib.import_module('catena.exporters.caffe')
        assert caffe.export('m', 'x') == ('exported', 'm', 'x', None)
    finally:
        for namespace, value in zip((sys.modules, vars(catena.exporters)), saved):
            key = 'catena.exporters.caffe' if namespace is sys.modules else 'caffe'
            namespace.pop(key, None)
            if value is not None:
                namespace[key] = value


# ---------------------------------------------------------------------------
# Testing and reporting
# ---------------------------------------------------------------------------


def test_hook_catena_test_backend_params(load_plugins):
    class ParamsPlugin:
        @hookimpl
        def catena_test_backend_params(self):
            return [{'device': '@toy:0', 'config': {'toy_level': 'always'}, 'marks': ['toy']}]

    load_plugins(params=ParamsPlugin())
    params = dict(_manager.call_each('catena_test_backend_params'))
    assert params['params'] == [{'device': '@toy:0', 'config': {'toy_level': 'always'},
                                 'marks': ['toy']}]
    # The built-in devices contribute theirs through the same hook.
    devices = [entry['device'] for entries in params.values() for entry in entries]
    assert '@numpy' in devices and '@fake' in devices


def test_hook_catena_runtime_info(load_plugins):
    class InfoPlugin:
        @hookimpl
        def catena_runtime_info(self):
            return ['Toy library: 1.2.3', 'Toy hardware: absent']

    load_plugins(info=InfoPlugin())
    out = io.StringIO()
    catena.print_runtime_info(out)
    text = out.getvalue()
    assert 'info:\n  Toy library: 1.2.3\n  Toy hardware: absent\n' in text
    assert '  info (catena-test-plugin 1.0): loaded\n' in text
    # The built-in NumPy plugin reports NumPy and its BLAS through the same hook.
    assert f'\nNumPy: {np.__version__} (' in text
