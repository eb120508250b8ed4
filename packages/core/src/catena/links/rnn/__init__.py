"""Recurrent links: LSTMs, GRUs, MGUs, tree LSTMs and the n-step sequence links."""
