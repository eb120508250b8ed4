"""Names that plugins add to catena.links through ``catena_register_links``."""

from __future__ import annotations

import pytest

import catena.links as L
from catena.plugins import _manager


class ToyLayers:
    pass


def test_a_plugin_name_resolves_and_unknown_names_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def call_each(hook: str) -> list:
        calls.append(hook)
        return [('toy', {'ToyLayers': ToyLayers})] if hook == 'catena_register_links' else []

    monkeypatch.setattr(_manager, 'call_each', call_each)
    monkeypatch.delitem(vars(L), 'ToyLayers', raising=False)
    assert L.ToyLayers is ToyLayers
    assert calls == ['catena_register_links']
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchLink'"):
        L.NoSuchLink  # noqa: B018
    monkeypatch.delitem(vars(L), 'ToyLayers')


def test_dunder_lookups_do_not_load_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_manager, 'call_each', lambda hook: pytest.fail('plugins loaded'))
    with pytest.raises(AttributeError):
        L.__wrapped__  # noqa: B018
