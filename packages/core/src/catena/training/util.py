"""Chainer's ``chainer.training.util``: :func:`get_trigger` under its old module path."""

from __future__ import annotations

from catena.training.trigger import _never_fire_trigger, get_trigger

__all__ = ['_never_fire_trigger', 'get_trigger']
