"""The evaluation engine behind `workbench eval`: run files (or arrays) against qrels,
with the strategy chosen for the input's size. Headless: numpy, the metrics and formats
packages; no click, rich, Textual or SQLAlchemy.

- `evaluate_files(qrels_path, run_paths, measures, ...)`: the entry point; files are read
  ahead in threads, several big runs go to forked worker processes (processes.py), one
  big run is read and evaluated in pieces (split.py).
- `evaluate_runs(qrels, runs, measures, ...)`: the same on runs and qrels already read
  (formats.trec.Run / Qrels), in this process.
"""

from workbench.evaluation.engine import EvaluatedRun, evaluate_files, evaluate_runs
from workbench.evaluation.processes import default_jobs

__all__ = ["EvaluatedRun", "default_jobs", "evaluate_files", "evaluate_runs"]
