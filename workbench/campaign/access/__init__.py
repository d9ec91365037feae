"""access: the personal links of `workbench serve` (who a browser session is for)."""
