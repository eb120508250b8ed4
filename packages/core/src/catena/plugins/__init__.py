"""catena's plugin system (pluggy).

Plugins implement the hooks of :mod:`catena.plugins.hookspecs` with
``from catena import hookimpl`` and declare an entry point in the ``catena``
group. Discovery is lazy: nothing is loaded until a device, a kernel, a plugin
configuration key or runtime information is first needed.
"""

from __future__ import annotations

import pluggy

PROJECT_NAME = 'catena'
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


def get_plugin_manager() -> pluggy.PluginManager:
    """Returns the plugin manager with every plugin loaded (loading on first call)."""
    from catena.plugins import _manager

    return _manager.load()


__all__ = ['get_plugin_manager', 'hookimpl', 'hookspec']
