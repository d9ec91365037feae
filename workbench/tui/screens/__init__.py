"""One screen or dialog per module."""
