"""A new campaign's settings: the defaults of the `campaign` row (store.models) and of the
rules that read it (campaign.settings), importable without SQLAlchemy."""

DEFAULT_MEASURES = "nDCG@10 AP bpref P@10"
DEFAULT_IDLE_CAP = 300  # seconds: five minutes on one document is not judging any more

__all__ = ["DEFAULT_IDLE_CAP", "DEFAULT_MEASURES"]
