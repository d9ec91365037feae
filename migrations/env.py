"""Alembic environment for workbench.

Run through `workbench init` (which passes a live connection) or the alembic CLI with
`-x db=URL`. Foreign keys are switched off on SQLite while migrating: batch mode rebuilds a
table by dropping it, which would otherwise fire ON DELETE CASCADE on child tables
(docs/architecture.md#known-pitfalls). `PRAGMA foreign_key_check` runs after, and any violation aborts.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from workbench.store.engine import make_engine
from workbench.store.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # PRAGMA foreign_keys is a no-op inside a transaction: end any open one first and
        # talk to the driver directly (SQLAlchemy would autobegin).
        if connection.in_transaction():
            connection.commit()
        connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
    try:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                bad = connection.execute(text("PRAGMA foreign_key_check")).fetchall()
                if bad:
                    raise RuntimeError(f"foreign key check failed after migration: {bad[:5]}")
    finally:
        if sqlite:
            if connection.in_transaction():
                connection.commit()
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("db")
    engine = make_engine(url)
    with engine.connect() as conn:
        _run(conn)
        if conn.in_transaction():
            conn.commit()
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; pass -x db=URL")
run_migrations_online()
