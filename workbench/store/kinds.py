"""The kinds of an `assessor` row (and of a nugget's origin): a person or a machine.

A module of its own so that store/models.py (its column defaults) can use the constants
that store/machine.py defines and re-exports (machine.py imports the models)."""

HUMAN, MACHINE = "human", "machine"
KINDS = (HUMAN, MACHINE)
