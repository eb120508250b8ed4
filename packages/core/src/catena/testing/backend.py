"""The device matrix of the tests: :class:`BackendConfig` and :func:`inject_backend_tests`.

The matrix comes from the ``catena_test_backend_params`` hook: the core
contributes ``@numpy`` and ``@fake``, catena-cuda ``@cupy:0`` and
catena-intel64 ``@intel64``. A test method that takes a ``backend_config``
argument is turned into one method per entry, named
``<method>__<device>`` (``test_forward__numpy``, ``test_forward__cupy_0``,
``test_forward__numpy__use_ideep_always``), so that plain pytest, unittest
and pytest's unittest support all see one test per device. An entry whose
device is unavailable here is skipped with the device's reason.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import threading
import unittest
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_CHAINER_CONFIG_KEYS = ('use_cudnn', 'use_ideep', 'cudnn_deterministic', 'autotune',
                        'cudnn_fast_batch_normalization')
_CONFIG_DEFAULTS = {'use_cudnn': 'never', 'use_ideep': 'never', 'cudnn_deterministic': False,
                    'autotune': False, 'cudnn_fast_batch_normalization': False}


def _from_chainer_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Translates Chainer's ``{'use_cuda': True, 'use_cudnn': 'always', ...}`` entries."""
    config = {key: params[key] for key in _CHAINER_CONFIG_KEYS if key in params}
    marks = []
    if params.get('use_chainerx'):
        chainerx_device = str(params.get('chainerx_device', 'native:0'))
        device = '@chainerx:' + chainerx_device
        marks.append('chainerx')
        if chainerx_device.startswith('cuda'):
            marks.append('gpu')
    elif params.get('use_cuda'):
        device = f'@cupy:{int(params.get("cuda_device", 0))}'
        marks.append('gpu')
        if config.get('use_cudnn', 'never') != 'never':
            marks.append('cudnn')
    else:
        device = '@numpy'
    if config.get('use_ideep', 'never') == 'always':
        marks.append('ideep')
    unknown = set(params) - set(_CHAINER_CONFIG_KEYS) - {
        'use_cuda', 'cuda_device', 'use_chainerx', 'chainerx_device'}
    if unknown:
        raise ValueError(f'unknown backend parameter(s) {sorted(unknown)} in {dict(params)}; '
                         'give {"device": spec, "config": {...}, "marks": [...]} instead')
    return {'device': device, 'config': config, 'marks': marks}


# While pytest collects, the plugin sets this from ``--catena-devices``: tests are
# generated only for these devices (None: for every device of the matrix).
_selection_while_collecting: list[str] | None = None
_usable_here: dict[str, bool] = {}


def device_selected(spec: str, selected: Iterable[str] | None) -> bool:
    """Whether the device ``spec`` is one of ``selected`` (None selects every device).

    A bare prefix selects every index (``'@cupy'`` selects ``'@cupy:1'``,
    ``'@cupy:0'`` selects ``'@cupy'``), and ``'available'`` selects every
    device that can be used here.
    """
    if selected is None:
        return True
    for wanted in selected:
        if wanted == 'available':
            if spec not in _usable_here:
                _usable_here[spec] = BackendConfig(spec).unavailable_reason is None
            if _usable_here[spec]:
                return True
        elif (spec == wanted or spec.startswith(wanted + ':') or
              (wanted.startswith(spec) and wanted[len(spec):] == ':0')):
            return True
    return False


def _slug(text: str) -> str:
    return re.sub(r'[^0-9A-Za-z]+', '_', text).strip('_')


class BackendConfig:
    """One entry of the device matrix: a device, configuration values and pytest marks.

    Args:
        params: ``{'device': '@cupy:0', 'config': {'use_cudnn': 'always'},
            'marks': ['gpu', 'cudnn']}`` (only ``'device'`` is required), or a
            Chainer-style dict such as ``{'use_cuda': True, 'use_cudnn':
            'never'}``, or a device spec string.

    Attributes:
        device_spec (str): The spec of the device.
        config (dict): Configuration keys set while the config is entered.
        marks (tuple): Names of pytest markers for tests run with it.

    Using the config as a context manager sets the configuration values and
    makes the device current::

        with backend_config:
            y = F.relu(backend_config.get_array(x))
    """

    def __init__(self, params: Mapping[str, Any] | str) -> None:
        if isinstance(params, str):
            params = {'device': params}
        elif 'device' not in params:
            params = _from_chainer_params(params)
        unknown = set(params) - {'device', 'config', 'marks'}
        if unknown:
            raise ValueError(f'unknown backend parameter(s) {sorted(unknown)} in {dict(params)}')
        self.device_spec: str = str(params['device'])
        self.config: dict[str, Any] = dict(params.get('config') or {})
        self.marks: tuple[str, ...] = tuple(params.get('marks') or ())
        self._contexts = threading.local()

    # ----------------------------------------------------------------- naming

    @property
    def name(self) -> str:
        """A readable name: the spec, then the configuration values."""
        if not self.config:
            return self.device_spec
        values = ', '.join(f'{key}={value}' for key, value in sorted(self.config.items()))
        return f'{self.device_spec}[{values}]'

    @property
    def test_id(self) -> str:
        """An identifier-safe name (``cupy_0__use_cudnn_always``) for method names and ids."""
        parts = [_slug(self.device_spec)]
        parts += [_slug(f'{key}_{value}') for key, value in sorted(self.config.items())]
        return '__'.join(parts)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f'<BackendConfig {self.name}>'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BackendConfig) and (
            self.device_spec, sorted(self.config.items(), key=repr), self.marks) == (
            other.device_spec, sorted(other.config.items(), key=repr), other.marks)

    def __hash__(self) -> int:
        return hash((self.device_spec, self.marks))

    # ---------------------------------------------------------------- devices

    @property
    def unavailable_reason(self) -> str | None:
        """Why the device cannot be used here, or None when it can."""
        if self.device_spec.startswith('@chainerx'):
            return 'ChainerX is not supported by catena (docs/compat.md)'
        from catena import backend
        from catena.backends import _registry

        prefix = self.device_spec.partition(':')[0]
        device_type = _registry.device_types_by_prefix.get(prefix)
        if device_type is None:
            return (f'no plugin registers the device {self.device_spec!r} (for "@cupy" '
                    'install catena-cuda, for "@intel64" catena-intel64)')
        reason = device_type.unavailable_reason()
        if reason is not None:
            return reason
        try:
            backend.get_device(self.device_spec)
        except Exception as error:  # noqa: BLE001 - any failure is a reason to skip
            return f'{type(error).__name__}: {error}'
        return None

    @property
    def device(self) -> Any:
        """The :class:`~catena.backend.Device` (raises when it is unavailable)."""
        from catena import backend

        return backend.get_device(self.device_spec)

    @property
    def xp(self) -> Any:
        """The array module of the device."""
        return self.device.xp

    def get_array(self, array: Any) -> Any:
        """Returns ``array`` (or a nested tuple/list/dict of arrays) on the device."""
        return self.device.send(array)

    # ----------------------------------------------------- Chainer attributes

    @property
    def use_cuda(self) -> bool:
        return self.device_spec.startswith('@cupy')

    @property
    def use_chainerx(self) -> bool:
        return self.device_spec.startswith('@chainerx')

    @property
    def cuda_device(self) -> int | None:
        if not self.use_cuda:
            return None
        index = self.device_spec.partition(':')[2]
        return int(index) if index else 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith('_'):
            raise AttributeError(name)
        config = self.__dict__.get('config', {})
        if name in config:
            return config[name]
        if name in _CONFIG_DEFAULTS:
            return _CONFIG_DEFAULTS[name]
        raise AttributeError(f'BackendConfig has no attribute {name!r}')

    # ------------------------------------------------------- context manager

    def __enter__(self) -> BackendConfig:
        from catena import backend
        from catena.configuration import using_config

        stack = contextlib.ExitStack()
        try:
            for key, value in self.config.items():
                stack.enter_context(using_config(key, value))
            stack.enter_context(backend.using_device(self.device))
        except BaseException:
            stack.close()
            raise
        stacks = getattr(self._contexts, 'stacks', None)
        if stacks is None:
            stacks = self._contexts.stacks = []
        stacks.append(stack)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._contexts.stacks.pop().close()

    def pytest_marks(self) -> list[Any]:
        """The pytest mark decorators named by :attr:`marks`."""
        from catena.testing import attr

        return [attr.mark(name) for name in self.marks]


_default_configs: list[BackendConfig] | None = None
_default_lock = threading.Lock()


def get_backend_configs() -> list[BackendConfig]:
    """Returns the device matrix from the ``catena_test_backend_params`` hooks.

    The built-in devices come first (``@numpy``, ``@fake``), then the
    plugins' in the order they were loaded. The list is built once.
    """
    global _default_configs
    with _default_lock:
        if _default_configs is None:
            from catena.plugins import _manager

            configs: list[BackendConfig] = []
            for _, entries in reversed(_manager.call_each('catena_test_backend_params')):
                for entry in entries or ():
                    config = BackendConfig(entry)
                    if config not in configs:
                        configs.append(config)
            _default_configs = configs
        return list(_default_configs)


# ----------------------------------------------------------------- injection

def _positional_after_self(function: Any) -> list[inspect.Parameter]:
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in parameters[1:] if p.kind in kinds and p.default is p.empty]


def _takes_backend_config(function: Any) -> bool:
    """Whether ``function`` is a test method whose first argument is a backend config.

    That argument is ``backend_config`` or another name containing it
    (``src_backend_config``, ``backend_config1``, ...). Methods generated by
    an injection are not originals themselves.
    """
    if not callable(function) or isinstance(function, type):
        return False
    if getattr(function, '_catena_backend_original', None) is not None:
        return False
    positional = _positional_after_self(function)
    return bool(positional) and 'backend_config' in positional[0].name


def _pending(function: Any) -> int:
    """How many backend configs ``function`` still takes (one per stacked injection)."""
    remaining = getattr(function, '_catena_backend_remaining', None)
    if remaining is not None:
        return int(remaining)
    return len(_positional_after_self(function))


def _make_test(original: Callable[..., Any], config: BackendConfig, name: str,
               owner: type) -> Callable[..., Any]:
    def test(self: Any, *args: Any, **kwargs: Any) -> Any:
        reason = config.unavailable_reason
        if reason is not None:
            raise unittest.SkipTest(f'{config.name} is unavailable: {reason}')
        return original(self, config, *args, **kwargs)

    test.__name__ = name
    test.__qualname__ = f'{owner.__qualname__}.{name}'
    test.__module__ = owner.__module__
    test.__doc__ = original.__doc__
    test._catena_backend_config = config  # type: ignore[attr-defined]
    test._catena_backend_original = original  # type: ignore[attr-defined]
    test._catena_backend_remaining = _pending(original) - 1  # type: ignore[attr-defined]
    marks = list(getattr(original, 'pytestmark', ()))
    if marks:
        test.pytestmark = marks  # type: ignore[attr-defined]
    for mark in config.pytest_marks():
        test = mark(test)
    return test


def _originals(cls: type) -> dict[str, Callable[..., Any]]:
    """The methods of ``cls`` that take ``backend_config``, including hidden inherited ones."""
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        found.update(klass.__dict__.get('_catena_backend_originals', {}))
        for name, value in klass.__dict__.items():
            if name.startswith('test') and _takes_backend_config(value):
                found[name] = value
            elif name in found and value is not None and not _takes_backend_config(value):
                found.pop(name)
    return found


def _layers(cls: type) -> list[dict[str | None, list[BackendConfig] | None]]:
    """The injections that apply to ``cls``, innermost first (those of its nearest base)."""
    for klass in cls.__mro__:
        layers = klass.__dict__.get('_catena_backend_layers')
        if layers is not None:
            return layers  # type: ignore[no-any-return]
    return [{None: None}]


def _unique(name: str, used: set[str]) -> str:
    candidate, suffix = name, 2
    while candidate in used:
        candidate = f'{name}_{suffix}'
        suffix += 1
    used.add(candidate)
    return candidate


def expand_backend_tests(cls: type) -> type:
    """Replaces each ``test*(self, backend_config)`` of ``cls`` by one method per config.

    The configs are those given to :func:`inject_backend_tests` on the class
    or a base class, else the default matrix (:func:`get_backend_configs`).
    Stacked injections on one class bind one argument each, innermost
    first: ``test(self, src_backend_config, dst_backend_config)`` becomes
    ``test__<src>__<dst>``. :class:`~catena.testing.FunctionTestCase` calls
    this for every subclass.
    """
    originals = _originals(cls)
    if not originals:
        return cls
    layers = _layers(cls)
    wanted: set[str] = set()
    for name, original in originals.items():
        current: dict[str, Callable[..., Any]] = {name: original}
        for layer in layers:
            configs: list[BackendConfig] | None
            if name in layer:
                configs = layer[name]
            elif None in layer:
                configs = layer[None]
            else:
                continue
            if configs is None:
                configs = get_backend_configs()
            if _selection_while_collecting is not None:
                configs = [config for config in configs
                           if device_selected(config.device_spec, _selection_while_collecting)]
            expanded: dict[str, Callable[..., Any]] = {}
            for base_name, function in current.items():
                if _pending(function) < 1:
                    expanded[base_name] = function
                    continue
                used: set[str] = set()
                for config in configs:
                    generated = _unique(f'{base_name}__{config.test_id}', used)
                    expanded[generated] = _make_test(function, config, generated, cls)
            current = expanded
        for generated, function in current.items():
            if generated == name:
                continue
            wanted.add(generated)
            setattr(cls, generated, function)
        if name not in current:
            setattr(cls, name, None)
    # Hide generated methods inherited for configs this class does not use.
    for name in dir(cls):
        if name in wanted:
            continue
        value = getattr(cls, name, None)
        if getattr(value, '_catena_backend_config', None) is not None and \
                getattr(value, '_catena_backend_original', None) is not None:
            setattr(cls, name, None)
    cls._catena_backend_originals = originals  # type: ignore[attr-defined]
    return cls


def inject_backend_tests(test_method_names: Iterable[str] | None,
                         params: Iterable[Mapping[str, Any] | str | BackendConfig] | None
                         ) -> Callable[[type], type]:
    """Runs test methods once per backend configuration.

    Each named method takes a ``backend_config`` argument (a
    :class:`BackendConfig`) and becomes one method per entry of ``params``,
    named ``<method>__<config.test_id>`` and carrying the entry's pytest
    marks; an unavailable device skips with its reason. Stacked on one class,
    each injection binds the next argument (the innermost the first), so
    ``test(self, src_backend_config, dst_backend_config)`` runs for every
    pair.

    Args:
        test_method_names: The methods to expand, or None for every
            ``test*`` method that takes ``backend_config``.
        params: Backend parameter dicts (``{'device': '@numpy'}``,
            Chainer's ``{'use_cuda': True}``, often from
            :func:`catena.testing.product`), spec strings, or None for the
            default matrix from the ``catena_test_backend_params`` hooks.

    .. admonition:: Example

        >>> @testing.inject_backend_tests(None, [{'device': '@numpy'}, {'device': '@fake'}])
        ... class TestSend(unittest.TestCase):
        ...     def test_send(self, backend_config):
        ...         x = backend_config.get_array(np.zeros(3))
        ...         assert backend.get_device_from_array(x) == backend_config.device
    """
    configs = None if params is None else [
        p if isinstance(p, BackendConfig) else BackendConfig(p) for p in params]
    names = None if test_method_names is None else list(test_method_names)

    def decorator(cls: type) -> type:
        if not isinstance(cls, type):
            raise TypeError(f'inject_backend_tests decorates classes; got {cls!r}')
        table: dict[str | None, list[BackendConfig] | None] = {}
        if names is None:
            table[None] = configs
        else:
            originals = _originals(cls)
            for name in names:
                if name not in originals:
                    raise ValueError(f'{cls.__qualname__}.{name} is not a test method taking '
                                     'a backend_config argument')
                table[name] = configs
        # A second injection on the same class binds the next argument; one on
        # a subclass replaces the configs it inherited.
        own = cls.__dict__.get('_catena_backend_layers')
        cls._catena_backend_layers = (own or []) + [table]  # type: ignore[attr-defined]
        expand_backend_tests(cls)
        # Classes made from cls before this decorator ran (by a parameterize
        # below it) take the new configurations too.
        pending: list[type] = list(cls.__subclasses__())
        while pending:
            sub = pending.pop()
            expand_backend_tests(sub)
            pending.extend(sub.__subclasses__())
        return cls

    return decorator


__all__ = ['BackendConfig', 'device_selected', 'expand_backend_tests', 'get_backend_configs',
           'inject_backend_tests']
