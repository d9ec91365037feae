"""trec_eval's ``-Z``: each query's values as z-scores against given means and deviations.

convert_zscores.c: a per-query value v of measure m (trec_eval's printed name, ``P_5``)
becomes (v - mean) / stddev with the mean and standard deviation the zscores file gives
for (query, m), before the values are averaged, so the 'all' line is the mean of the
z-scores (counts such as num_ret too: they print with 4 decimals then). A stddev of 0
gives 0 when v equals the mean; that case and a (query, measure) the file lacks give
MISSING_ZSCORE (-1000000), as in trec_eval.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MISSING_ZSCORE", "zscores"]

MISSING_ZSCORE = -1000000.0  # trec_eval.h MISSING_ZSCORE_VALUE


def zscores(values: np.ndarray, mean: np.ndarray, stddev: np.ndarray) -> np.ndarray:
    """z-scores of values (per query) given their mean and stddev (NaN where the zscores
    file has no line for that query and measure)."""
    v = np.asarray(values, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    sd = np.asarray(stddev, dtype=np.float64)
    out = np.full(np.broadcast(v, mean, sd).shape, MISSING_ZSCORE)
    known = ~(np.isnan(mean) | np.isnan(sd))
    scaled = known & (sd != 0)
    np.divide(v - mean, sd, out=out, where=scaled)
    out[known & (sd == 0) & (v == mean)] = 0.0
    return out
