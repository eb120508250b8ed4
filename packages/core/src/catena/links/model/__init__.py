"""Model links."""
