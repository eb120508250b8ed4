"""Exporters to other frameworks' formats, contributed by plugins.

``catena.exporters.caffe`` (Chainer's ``chainer.exporters.caffe``) comes with
catena-zoo. Plugins add exporters through the ``catena_register_exporters``
hook; each appears here under its name.
"""

from __future__ import annotations

import types

from catena._install import install_hint
from catena.plugins import _manager


def plugin_exporter(name: str) -> types.ModuleType:
    """Returns the exporter module a plugin registered under ``name``.

    Args:
        name: The exporter's name, e.g. ``'caffe'``.

    Returns:
        The module (it has an ``export`` function).

    Raises:
        ImportError: No installed plugin provides it (the message says which
            package does, for the exporters catena knows).
    """
    for _plugin, modules in _manager.call_each('catena_register_exporters'):
        if name in (modules or {}):
            return modules[name]
    hint = f' ({install_hint("catena-zoo")})' if name == 'caffe' else ''
    raise ImportError(f'no installed plugin provides the exporter catena.exporters.{name}'
                      f'{hint}', name=f'catena.exporters.{name}')


def __getattr__(name: str) -> types.ModuleType:
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    try:
        module = plugin_exporter(name)
    except ImportError as error:
        raise AttributeError(str(error)) from None
    globals()[name] = module
    return module
