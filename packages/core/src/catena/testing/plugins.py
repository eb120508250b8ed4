"""Helpers for testing plugin discovery without installing anything.

A plugin author can check that catena finds and uses a plugin module by
standing in for its entry point::

    def test_my_device(monkeypatch):
        from catena.testing import plugins
        plugins.install_entry_points(monkeypatch, plugins.FakeEntryPoint('mine', my_plugin))
        assert catena.get_device('@mine')
"""

from __future__ import annotations

import importlib.metadata
from typing import Any


class FakeDistribution:
    """Stands in for the distribution that declares an entry point."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version


class FakeEntryPoint:
    """Stands in for an :class:`importlib.metadata.EntryPoint` of group ``catena``.

    Args:
        name: The entry point's name.
        plugin: What ``load()`` returns (a module or any object with hookimpls).
        error: An exception ``load()`` raises instead, as a broken plugin would.
        dist: The name of the declaring distribution, or None for none.
        version: The distribution's version.
    """

    group = 'catena'

    def __init__(self, name: str, plugin: Any = None, error: BaseException | None = None,
                 dist: str | None = 'catena-fake-plugin', version: str = '0.1') -> None:
        self.name = name
        self.value = f'{name}_module'
        self.dist = FakeDistribution(dist, version) if dist is not None else None
        self._plugin = plugin
        self._error = error
        self.loads = 0

    def load(self) -> Any:
        """Returns the plugin, or raises the error given."""
        self.loads += 1
        if self._error is not None:
            raise self._error
        return self._plugin


def install_entry_points(monkeypatch: Any, *entry_points: FakeEntryPoint) -> None:
    """Makes ``entry_points`` the only ones of group ``catena`` and forgets loaded plugins.

    Args:
        monkeypatch: pytest's ``monkeypatch`` fixture; it undoes the patch.
        entry_points: The fake entry points.
    """
    from catena.plugins import _manager

    def fake_entry_points(group: str | None = None, **kwargs: Any) -> list[FakeEntryPoint]:
        return [ep for ep in entry_points if group is None or ep.group == group]

    monkeypatch.setattr(importlib.metadata, 'entry_points', fake_entry_points)
    _manager.reset_for_testing()
