"""Plugin discovery, per-plugin failure isolation and the tables built from hooks.

Loading happens once, under a lock, on the first call that needs a plugin.
``CATENA_DISABLE_PLUGIN_AUTOLOAD=1`` skips entry points (except those named in
``CATENA_PLUGINS``); ``CATENA_PLUGINS=a,b`` loads only the named entry points.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import threading
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from catena.plugins import PROJECT_NAME, hookspecs

ENTRY_POINT_GROUP = 'catena'
DEFAULT_PLUGINS = (
    'catena.backends._numpy',
    'catena.testing._fake_device',
)


@dataclass
class PluginRecord:
    """What is known about one plugin: where it came from and whether it works."""

    name: str
    source: str  # 'builtin' or the distribution name
    version: str = ''
    error: str | None = None
    hooks: list[str] = field(default_factory=list)


_lock = threading.RLock()
_plugin_manager: pluggy.PluginManager | None = None
# True once loading has finished and the tables are built. _plugin_manager is
# published earlier (see _load_locked), so other threads must not use it as
# the "done" signal: they wait on the lock until _ready is set.
_ready = False
_records: dict[str, PluginRecord] = {}
_config_applied = False


def load() -> pluggy.PluginManager:
    """Returns the plugin manager, loading every plugin and building tables once."""
    pm = _plugin_manager
    if _ready and pm is not None:
        return pm
    with _lock:
        if _plugin_manager is None:
            _load_locked()
        assert _plugin_manager is not None
        return _plugin_manager


def is_loaded() -> bool:
    """Whether plugins have been loaded in this process."""
    return _plugin_manager is not None


def records() -> list[PluginRecord]:
    """Returns one record per plugin, loaded or failed, in loading order."""
    load()
    return list(_records.values())


def failures() -> dict[str, str]:
    """Returns ``{plugin name: reason}`` for every plugin that failed."""
    load()
    return {r.name: r.error for r in _records.values() if r.error is not None}


def apply_config_defaults() -> bool:
    """Adds plugins' configuration keys to the global config; True if any were new."""
    global _config_applied
    load()
    with _lock:
        if _config_applied:
            return False
        _config_applied = True
        from catena.configuration import global_config

        added = False
        for _, defaults in call_each('catena_config_defaults'):
            for key, value in (defaults or {}).items():
                if key not in global_config.__dict__:
                    setattr(global_config, key, value)
                    added = True
        return added


def call_each(hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
    """Calls each implementation of a hook, isolating failures per plugin.

    A plugin whose implementation raises is recorded as failed and unregistered,
    so that a broken plugin cannot break the others.

    Returns:
        A list of ``(plugin name, result)`` for the implementations that
        returned normally, in pluggy's call order.
    """
    pm = load()
    results = []
    for impl in reversed(getattr(pm.hook, hook_name).get_hookimpls()):
        args = {name: kwargs[name] for name in impl.argnames}
        try:
            results.append((impl.plugin_name, impl.function(**args)))
        except (Exception, SystemExit) as error:  # noqa: BLE001 - isolation is the point
            _fail(pm, impl.plugin_name, error, f'in hook {hook_name}')
    return results


def reset_for_testing() -> None:
    """Forgets all loaded plugins and tables (tests of discovery use this)."""
    global _plugin_manager, _config_applied, _ready
    with _lock:
        _ready = False
        _plugin_manager = None
        _config_applied = False
        _records.clear()
        from catena.backends import _registry

        _registry.reset()


def _load_locked() -> None:
    global _plugin_manager, _ready
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    # Published before the plugins load so that a plugin's catena_addhooks may
    # reach catena.plugins.get_plugin_manager() without recursing here.
    _plugin_manager = pm
    for module_name in DEFAULT_PLUGINS:
        _register(pm, module_name, lambda m=module_name: importlib.import_module(m),
                  source='builtin')
    for entry_point in _selected_entry_points():
        dist = entry_point.dist
        _register(pm, entry_point.name, entry_point.load,
                  source=dist.name if dist is not None else entry_point.value,
                  version=dist.version if dist is not None else '')
    pm.hook.catena_addhooks.call_historic(kwargs={'pluginmanager': pm})
    from catena.backends import _registry

    _registry.build(call_each, lambda name: name in _records and _records[name].error is not None)
    _ready = True


def _selected_entry_points() -> Iterable[importlib.metadata.EntryPoint]:
    allow = os.environ.get('CATENA_PLUGINS')
    allowed = {name.strip() for name in allow.split(',') if name.strip()} if allow else None
    disabled = os.environ.get('CATENA_DISABLE_PLUGIN_AUTOLOAD', '').strip() not in ('', '0')
    if disabled and not allowed:
        return []
    entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    seen = set()
    selected = []
    for entry_point in entry_points:
        if entry_point.name in seen:
            continue
        seen.add(entry_point.name)
        if allowed is not None and entry_point.name not in allowed:
            continue
        selected.append(entry_point)
    return selected


def _register(pm: pluggy.PluginManager, name: str, loader: Any, source: str,
              version: str = '') -> None:
    record = PluginRecord(name=name, source=source, version=version)
    _records[name] = record
    try:
        plugin = loader()
        pm.register(plugin, name=name)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - a broken plugin must not break catena
        _fail(pm, name, error, 'on import')
        return
    record.hooks = sorted(impl.name for impl in pm.get_hookcallers(plugin) or ())


def _fail(pm: pluggy.PluginManager, name: str, error: BaseException, where: str) -> None:
    record = _records.setdefault(name, PluginRecord(name=name, source='unknown'))
    last = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    location = f' at {last[0].filename}:{last[0].lineno}' if last else ''
    record.error = f'{type(error).__name__} {where}: {error}{location}'
    plugin = pm.get_plugin(name)
    if plugin is not None:
        pm.unregister(plugin)
