"""SQLAlchemy models, engine and session factory, array loaders. ORM rows stay here."""
