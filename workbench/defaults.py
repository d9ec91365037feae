"""Every default the user meets without naming it, in one place: a new campaign's settings
and the measure each command uses when `-m` is left out.

Shared by every layer (like names.py and errors.py) and importing nothing: the store's
column defaults (store/models.py), the settings' fallbacks (campaign/settings.py), the
commands (cli/), the planning code and the Python API (api.py) all read the values here,
so that a default is changed once. docs/architecture.md#one-owner-per-rule lists it.

Why the commands differ: `eval` (and `workbench.evaluate`) is trec_eval, so it prints
trec_eval's own default set; a command on the stored campaign ranks by the campaign's first
default measure (its settings, CAMPAIGN_MEASURES in a new one), and the same command on
files, where there is no campaign, by that same first measure (nDCG@10); `calibrate` and
the planning commands (`plan topics`, `planning simulate|reusability`) compare rankings of
systems by MAP, the measure the pooling and reusability literature they reproduce reports.

The relevance scale's preset is `campaign/scale.py`'s (DEFAULT_PRESET there).
"""

from __future__ import annotations

# ---- a new campaign's settings (the `campaign` row; store/models.py's column defaults)
DEFAULT_MEASURES = "nDCG@10 AP bpref P@10"  # the campaign's default measures
DEFAULT_IDLE_CAP = 300  # seconds: five minutes on one document is not judging any more
DEFAULT_POOL_DEPTH = 10  # documents of each run's ranking per query that enter the pool
DEFAULT_THRESHOLD = 1  # grades >= 1 are relevant for binary measures (trec_eval's -l 1)
DEFAULT_COMPAT = 10  # trec_eval 10 orders run scores as doubles (9: as floats)

# ---- the measure(s) of a command when -m is not given
EVAL_MEASURES = ("official",)  # `eval`, workbench.evaluate: trec_eval's default set
FILES_MEASURE = DEFAULT_MEASURES.split()[0]  # `compare` on files, workbench.compare
CALIBRATE_MEASURE = "map"  # `calibrate`: the system rankings under human and machine qrels
CALIBRATE_NUGGETS_MEASURE = "vital_strict"  # `calibrate --nuggets`: a nugget score
PLANNING_MEASURE = "map"  # `plan topics`, `planning simulate|reusability`, the planning screen
REUSABILITY_FILES_DEPTH = 100  # `reusability` on files (no campaign pool depth): TREC's pools

__all__ = [
    "CALIBRATE_MEASURE", "CALIBRATE_NUGGETS_MEASURE", "DEFAULT_COMPAT", "DEFAULT_IDLE_CAP",
    "DEFAULT_MEASURES", "DEFAULT_POOL_DEPTH", "DEFAULT_THRESHOLD", "EVAL_MEASURES",
    "FILES_MEASURE", "PLANNING_MEASURE", "REUSABILITY_FILES_DEPTH",
]
