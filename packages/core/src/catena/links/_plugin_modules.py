"""Chainer's module paths under ``catena.links`` that plugins provide.

A plugin returns modules from the ``catena_register_link_modules`` hook,
keyed by their path below ``catena.links`` (``'caffe'``,
``'model.vision.resnet'``). A core module at such a path calls
:func:`become` while it is imported: the plugin's module then takes its
place in :data:`sys.modules`, so that ``import catena.links.X`` and
``from catena.links import X`` give the plugin's module itself (patching a
name on it patches what the plugin's code uses). Modules registered under
deeper paths (``'caffe.caffe_function'``) are placed at the same time.
"""

from __future__ import annotations

import sys
import types

__all__ = ['become', 'registered_modules']

_PREFIX = 'catena.links.'


def registered_modules() -> dict[str, types.ModuleType]:
    """Returns ``{path below catena.links: module}`` from every plugin (the first wins)."""
    from catena.plugins import _manager

    modules: dict[str, types.ModuleType] = {}
    for _plugin, provided in _manager.call_each('catena_register_link_modules'):
        for path, module in (provided or {}).items():
            modules.setdefault(path, module)
    return modules


def become(module_name: str) -> None:
    """Puts the plugin's module for ``module_name`` in its place in ``sys.modules``.

    Args:
        module_name: The full name of the calling module,
            ``'catena.links.<path>'``.

    Raises:
        ImportError: No installed plugin provides the path.
    """
    path = module_name.removeprefix(_PREFIX)
    modules = registered_modules()
    if path not in modules:
        raise ImportError(
            f'no installed plugin provides {module_name} (Chainer\'s pretrained vision models '
            'and Caffe import come with the model-zoo plugin; `python -m catena info` lists '
            'the installed plugins)', name=module_name)
    for sub_path, module in modules.items():
        if sub_path.startswith(path + '.'):
            sys.modules.setdefault(_PREFIX + sub_path, module)
    sys.modules[module_name] = modules[path]
