"""trec_eval's ``-Z``: each query's values as z-scores against given means and deviations.

convert_zscores.c: a per-query value v of measure m (trec_eval's printed name, ``P_5``)
becomes (v - mean) / stddev with the mean and standard deviation the zscores file gives
for (query, m), before the values are averaged, so the 'all' line is the mean of the
z-scores (counts such as num_ret too: they print with 4 decimals then). A stddev of 0
gives 0 when v equals the mean; that case and a (query, measure) the file lacks give
MISSING_ZSCORE (-1000000), as in trec_eval.

The geometric means (gm_map, gm_bpref) hold log(max(v, 1e-5)) per query in trec_eval
(m_gm_map.c, m_gm_bpref.c): that log is what is z-scored, and the 'all' value is exp of
the mean z-score (te_calc_avg_meas_s_gm), as ``zscored_values`` and ``zscored_summary``
compute.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.kernels.context import MIN_GEO_MEAN
from workbench.metrics.registry import AGGREGATIONS, sequential_sum

__all__ = ["MISSING_ZSCORE", "zscores", "zscored_values", "zscored_summary"]

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
    with np.errstate(over="ignore", invalid="ignore"):  # a tiny stddev: ±inf, as trec_eval
        np.divide(v - mean, sd, out=out, where=scaled)
    out[known & (sd == 0) & (v == mean)] = 0.0
    return out


def zscored_values(measure, values: np.ndarray, mean: np.ndarray, stddev: np.ndarray) -> np.ndarray:
    """A measure's per-query z-scores as trec_eval forms them: of log(max(v, 1e-5)) for a
    geometric mean (what trec_eval accumulates for gm_map), of v for the others."""
    v = np.asarray(values, dtype=np.float64)
    if measure.aggregation == "geometric mean":
        v = np.log(np.maximum(v, MIN_GEO_MEAN))
    return zscores(v, mean, stddev)


def zscored_summary(measure, z: np.ndarray) -> float:
    """The 'all' value of per-query z-scores: exp(mean) for a geometric mean (the mean of
    logs, summed in query order), the family's own aggregation otherwise."""
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf - inf: NaN, printed -nan
        if measure.aggregation == "geometric mean":
            return float(np.exp(sequential_sum(z) / z.size)) if z.size else 0.0
        return AGGREGATIONS[measure.aggregation](z)
