"""The headless evaluation engines: TREC files or arrays in, `Evaluation` records out.

`stored.py` evaluates the campaign's stored runs (arrays the store hands out) against qrels
given as database ids, for `workbench score` and the live panels (campaign/scoring drives
it); the file engine is below.

`evaluate_files` and `evaluate_arrays` (in `engine`) are the entry points; they pick the
strategy (`strategy`): this process with threads reading ahead (`threads`), forked
workers one run each (`processes`), or one big run split over forked processes,
reading included (`split`). No database, no printing (the printers are in
`workbench.formats.evaluation_output`), no Textual, SQLAlchemy, Click or Rich.
"""

from workbench.evaluation.engine import evaluate_arrays, evaluate_files
from workbench.evaluation.results import EvalSettings, RunResult

__all__ = ["EvalSettings", "RunResult", "evaluate_arrays", "evaluate_files"]
