"""Fused parameter updates of the core's ``catena.optimizers`` update rules."""
