"""Chainer's ``chainer.distributions.utils``: the helpers shared by the distributions."""

from __future__ import annotations

from catena.distributions._utils import ModifiedXLogX, xlogx as _modified_xlogx

__all__ = ['ModifiedXLogX', '_modified_xlogx']
