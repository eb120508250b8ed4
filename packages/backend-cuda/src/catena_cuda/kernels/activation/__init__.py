"""Kernels of the core's ``catena.functions.activation`` nodes."""
