"""Activation links."""
