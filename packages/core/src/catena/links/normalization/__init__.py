"""Normalization links."""
