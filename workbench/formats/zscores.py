"""trec_eval's zscores file (``-Z FILE``): ``qid measure mean stddev`` per line.

Exactly four whitespace-separated columns (get_zscores.c); the measure is trec_eval's
printed name (``P_5``, ``iprec_at_recall_0.10``). trec_eval reads the numbers with
``atof`` (a typo becomes 0); here a number that does not parse, a missing or extra
column, or the same (qid, measure) twice is refused with file:line.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from workbench.errors import InputError
from workbench.formats.textlines import iter_lines

__all__ = ["ZScores", "read_zscores"]


@dataclass(frozen=True)
class ZScores:
    """The lines of a zscores file as a (qid, measure) -> (mean, stddev) table."""

    table: dict[tuple[str, str], tuple[float, float]]

    def lookup(self, qids, measure: str) -> tuple[np.ndarray, np.ndarray]:
        """(mean, stddev) arrays for `measure` at each query id (NaN where absent)."""
        pairs = [self.table.get((str(q), measure), (math.nan, math.nan)) for q in qids]
        arr = np.array(pairs, dtype=np.float64).reshape(len(pairs), 2)
        return arr[:, 0], arr[:, 1]


def read_zscores(path: str | os.PathLike) -> ZScores:
    """Read a zscores file; InputError (file:line) on a malformed line."""
    name = os.fspath(path)
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, text in iter_lines(name):
        cols = text.split()
        if not cols:
            continue
        if len(cols) != 4:
            raise InputError(name, number, f"expected 4 columns (qid measure mean stddev), got {len(cols)}")
        qid, measure, mean, sd = cols
        try:
            values = (float(mean), float(sd))
        except ValueError:
            raise InputError(name, number, f"mean and stddev must be numbers, got {mean!r} {sd!r}") from None
        if not all(math.isfinite(v) for v in values):
            raise InputError(name, number, "mean and stddev must be finite")
        if (qid, measure) in table:
            raise InputError(name, number, f"query {qid!r} measure {measure!r} given twice")
        table[(qid, measure)] = values
    return ZScores(table)
