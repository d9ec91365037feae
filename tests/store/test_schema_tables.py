"""The schema check knows the tables at head without importing the models
(store.schema.MODEL_TABLES, so that reading commands start without SQLAlchemy): the list
must be the models' own."""

from workbench.store.models import Base
from workbench.store.schema import MODEL_TABLES, workbench_tables


def test_model_tables_are_the_models_tables():
    assert MODEL_TABLES == frozenset(Base.metadata.tables)
    assert workbench_tables() == MODEL_TABLES | {"alembic_version"}
