"""Public test helpers (``catena.testing``)."""
