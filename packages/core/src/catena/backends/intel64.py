"""``catena.backends.intel64``: Chainer's ``backends.intel64``, served by catena-intel64.

Chainer accelerated Intel CPUs with iDeep (ideep4py), which is not published
for current Python; catena-intel64 calls oneDNN directly instead. This module
holds no oneDNN code: reading one of its names asks the plugin registry for
the module that catena-intel64 provides (the ``catena_backend_modules``
hook) and returns that module's attribute; this loads the plugins on first
access, never on import.

Without catena-intel64, the answers are those of a machine without iDeep:
``is_ideep_available()``, ``should_use_ideep(level)`` and
``inputs_all_ready(inputs)`` are False, ``check_ideep_available()`` raises,
``Intel64Device`` is a class that cannot be instantiated and ``mdarray`` a
class that no array is an instance of (catena-intel64 keeps its arrays in
NumPy, so ``mdarray`` is this placeholder even when the plugin is
installed). Every other name raises an :class:`AttributeError` (so
``hasattr`` works) that says which package to install.
"""

from __future__ import annotations

import types
from typing import Any, NoReturn

from catena._install import install_hint
from catena.backends import _absent

_INSTALL = install_hint('catena-intel64')


def _plugin() -> types.ModuleType | None:
    from catena.backends import _registry

    return _registry.backend_modules.get('intel64')


def __getattr__(name: str) -> Any:
    if name.startswith('__'):
        # Module protocol probes must not load plugins.
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    plugin = _plugin()
    if plugin is not None:
        try:
            return getattr(plugin, name)
        except AttributeError:
            # An unknown name raises the plugin module's own AttributeError,
            # unless Chainer had a placeholder for it.
            if name not in _PLACEHOLDERS:
                raise
        return _FALLBACKS[name]
    if name in _FALLBACKS:
        return _FALLBACKS[name]
    raise AttributeError(f'catena.backends.intel64.{name} needs the catena-intel64 package: '
                         f'{_INSTALL}')


def __dir__() -> list[str]:
    names = set(globals()) | set(_FALLBACKS)
    plugin = _plugin()
    if plugin is not None:
        names |= set(dir(plugin)) | _PLACEHOLDERS
    return sorted(n for n in names if not n.startswith('_'))


# ---------------------------------------------------------------------------
# The surface used when catena-intel64 is not installed
# ---------------------------------------------------------------------------

_LEVELS = ('==always', '>=auto')


def _is_ideep_available() -> bool:
    """Returns False: Intel CPU acceleration needs catena-intel64."""
    return False


def _check_ideep_available() -> NoReturn:
    """Raises: Intel CPU acceleration needs catena-intel64."""
    raise RuntimeError('Intel CPU acceleration (oneDNN, which replaces iDeep) is not '
                       f'available: install catena-intel64 ({_INSTALL})')


def _should_use_ideep(level: str) -> bool:
    """Returns False after checking that ``level`` is '==always' or '>=auto'."""
    if level not in _LEVELS:
        raise ValueError(f"level must be '==always' or '>=auto', got {level!r}")
    return False


def _inputs_all_ready(inputs: Any, supported_ndim: tuple[int, ...] = (2, 4)) -> bool:
    """Returns False: without catena-intel64 no input is ready for oneDNN."""
    return False


class _Mdarray:
    """Stands in for iDeep's array type: no array is an instance of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError('iDeep arrays (ideep4py.mdarray) are not used by catena: '
                           'catena-intel64 works on NumPy arrays')


_FALLBACKS: dict[str, Any] = {
    'Intel64Device': _absent.Intel64Device,
    'mdarray': _Mdarray,
    'check_ideep_available': _check_ideep_available,
    'inputs_all_ready': _inputs_all_ready,
    'is_ideep_available': _is_ideep_available,
    'should_use_ideep': _should_use_ideep,
}

_PLACEHOLDERS = frozenset({'mdarray'})
