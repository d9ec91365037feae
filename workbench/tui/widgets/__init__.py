"""One widget per module, grouped by the screen area they fill."""
