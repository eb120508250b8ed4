"""catena.exporters without a plugin that provides the exporter."""

from __future__ import annotations

import importlib
import sys

import pytest

import catena.exporters
from catena.plugins import _manager


def test_missing_exporter_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_manager, 'call_each', lambda hook: [])
    saved = sys.modules.pop('catena.exporters.caffe', None), vars(catena.exporters).pop(
        'caffe', None)
    try:
        with pytest.raises(ImportError, match="pip install './packages/zoo'") as e:
            importlib.import_module('catena.exporters.caffe')
        assert e.value.name == 'catena.exporters.caffe'
        assert 'catena.exporters.caffe' not in sys.modules
    finally:
        if saved[0] is not None:
            sys.modules['catena.exporters.caffe'] = saved[0]
        if saved[1] is not None:
            vars(catena.exporters)['caffe'] = saved[1]
    with pytest.raises(AttributeError, match='catena.exporters.onnx'):
        catena.exporters.onnx  # noqa: B018


def test_dunder_lookups_do_not_load_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_manager, 'call_each', lambda hook: pytest.fail('plugins loaded'))
    with pytest.raises(AttributeError):
        catena.exporters.__wrapped__  # noqa: B018
