"""Trainer extensions (``catena.training.extensions``)."""

from __future__ import annotations

__all__: list[str] = []
