"""Global and thread-local configuration (``catena.config``).

Reading a key looks in the calling thread's local settings first and falls back
to :data:`global_config`. :func:`using_config` changes a key for the duration
of a ``with`` block in the current thread only.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any


class GlobalConfig:
    """The process-wide configuration object (``catena.global_config``)."""

    _name: str
    _mirrors: list[type]

    def __init__(self, name: str = 'global') -> None:
        self.__dict__['_name'] = name
        self.__dict__['_mirrors'] = []

    # Every key is mirrored as a class attribute of the LocalConfig classes built
    # over this object, so that reading a key not set locally is a plain
    # attribute lookup: the hot path (FunctionNode.apply) reads several per call.
    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = value
        for mirror in self._mirrors:
            setattr(mirror, name, value)

    def __delattr__(self, name: str) -> None:
        del self.__dict__[name]
        for mirror in self._mirrors:
            if name in mirror.__dict__:
                delattr(mirror, name)

    def show(self, file: Any = None) -> None:
        """Prints the configuration keys and values, sorted by key.

        Args:
            file: A writable text stream (default: ``sys.stdout``).
        """
        entries = {k: v for k, v in self.__dict__.items() if not k.startswith('_')}
        _print_entries(entries, file)

    def __repr__(self) -> str:
        return f'<catena.configuration.GlobalConfig {self._name!r}>'


class LocalConfig(threading.local):
    """Thread-local configuration that falls back to a :class:`GlobalConfig`.

    A key set on this object affects the current thread only. A key that is not
    set locally reads the global value.

    Args:
        global_config: The configuration consulted for keys not set locally.
    """

    _global: GlobalConfig

    def __new__(cls, global_config: GlobalConfig) -> LocalConfig:
        if '_global' not in cls.__dict__:
            # A dedicated subclass per global config holds the mirrored keys.
            namespace = {'_global': global_config, '__qualname__': cls.__qualname__}
            cls = type(cls.__name__, (cls,), namespace)
            for key, value in vars(global_config).items():
                if not key.startswith('_'):
                    setattr(cls, key, value)
            global_config._mirrors.append(cls)
        return super().__new__(cls, global_config)  # type: ignore[call-arg]

    # threading.local calls __init__ once per thread with the same arguments.
    def __init__(self, global_config: GlobalConfig) -> None:
        pass

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if self is config:
            setattr(flags, name, value)

    def __getattr__(self, name: str) -> Any:
        try:
            return getattr(self._global, name)
        except AttributeError:
            pass
        if name.startswith('_') or not _load_plugin_defaults():
            raise AttributeError(f'catena.config has no key {name!r}') from None
        try:
            return getattr(self._global, name)
        except AttributeError:
            raise AttributeError(f'catena.config has no key {name!r}') from None

    def __delattr__(self, name: str) -> None:
        """Removes the thread-local value of ``name`` (the global value shows again).

        Raises:
            AttributeError: If ``name`` has no thread-local value.
        """
        if name not in self.__dict__:
            raise AttributeError(f'catena.config has no thread-local value of {name!r} '
                                 'to delete')
        super().__delattr__(name)
        if self is config:
            flags.__dict__.pop(name, None)

    def show(self, file: Any = None) -> None:
        """Prints every key visible from this thread with its effective value.

        Args:
            file: A writable text stream (default: ``sys.stdout``).
        """
        entries = {k: v for k, v in vars(self._global).items() if not k.startswith('_')}
        entries.update({k: v for k, v in self.__dict__.items() if not k.startswith('_')})
        _print_entries(entries, file)

    def __repr__(self) -> str:
        return f'<catena.configuration.LocalConfig over {self._global!r}>'


def _print_entries(entries: dict[str, Any], file: Any) -> None:
    file = sys.stdout if file is None else file
    width = max((len(k) for k in entries), default=0)
    for key in sorted(entries):
        print(f'{key:<{width}} {entries[key]}', file=file)


def _load_plugin_defaults() -> bool:
    """Loads plugins so that their configuration keys exist; True if any were added."""
    from catena.plugins import _manager

    return _manager.apply_config_defaults()


class _Flags(threading.local):
    """What :data:`config` reads in the calling thread, for the hot paths.

    Reading a key of :data:`config` costs about three times a plain
    thread-local read, because LocalConfig's ``__getattr__`` (plugin defaults,
    the message for a missing key) makes Python route every read through a
    method call. ``FunctionNode.apply`` and backprop read a few keys per call
    from :data:`flags` instead: its class mirrors the global keys and its
    thread-local values follow :data:`config`'s (LocalConfig's ``__setattr__``
    and ``__delattr__`` copy them). A key that no code has defined yet (a
    plugin's, before the plugins are loaded) is missing here: read it from
    :data:`config`.
    """


global_config = GlobalConfig()
config = LocalConfig(global_config)
flags = _Flags()
global_config._mirrors.append(_Flags)

_MISSING = object()


@contextlib.contextmanager
def using_config(name: str, value: Any, config: LocalConfig = config) -> Iterator[None]:
    """Sets a configuration key for the current thread within a ``with`` block.

    Args:
        name: The key, for example ``'train'`` or ``'enable_backprop'``.
        value: The value the key takes inside the block.
        config: The local configuration to change (``catena.config`` by default).

    .. admonition:: Example

        >>> with catena.using_config('train', False):
        ...     y = F.dropout(np.ones(4, np.float32))  # identity outside training
        >>> y.array
        array([1., 1., 1., 1.], dtype=float32)
        >>> catena.config.train
        True
    """
    old = config.__dict__.get(name, _MISSING)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(config, name)
        else:
            setattr(config, name, old)
