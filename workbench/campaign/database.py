"""Opening a campaign database: the handle every use case takes, and `workbench init`."""

from __future__ import annotations

from dataclasses import dataclass

# The handle lives with the engine it wraps (store/); use cases import it from here.
from workbench.store.database import Database

__all__ = ["Database", "InitResult", "initialise", "missing_database_file"]


@dataclass(frozen=True)
class InitResult:
    """What `workbench init` did: `state` was 'new', 'older' or 'current' before."""

    where: str
    state: str
    before: str | None
    revision: str | None


def initialise(db: str | None) -> InitResult:
    """Create or upgrade the schema to head; refuses foreign or newer databases unchanged."""
    from workbench.store.engine import make_engine
    from workbench.store.schema import current_revision, ensure_schema

    engine = make_engine(db)
    try:
        change = ensure_schema(engine, upgrade_older=True)  # 0005 stores older runs as arrays
        return InitResult(
            engine.url.render_as_string(hide_password=True), change.state, change.before,
            current_revision(engine),
        )
    finally:
        engine.dispose()


def missing_database_file(db: str | None) -> str | None:
    """The path of the SQLite file `db` names when it does not exist yet (None otherwise, and
    for PostgreSQL): the TUI asks before it creates one."""
    from workbench.store.schema import missing_sqlite_file

    return missing_sqlite_file(db)
