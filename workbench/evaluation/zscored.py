"""trec_eval's ``-Z``: an evaluation whose per-query values are z-scores.

Each query's value of each measure becomes (v - mean) / stddev, mean and stddev from the
zscores file's line for (query, the measure's printed name) (metrics.zscore: -1000000
where the file has none), before the 'all' values are formed, so the 'all' line
aggregates the z-scores as trec_eval does (a mean, a sum for counts; for gm_map and
gm_bpref the z-scores are of log(max(v, 1e-5)) and the 'all' value exp of their mean).
runid and relstring are not numbers and stay as they are; num_q still counts queries;
with -c, num_rel's 'all' value stays trec_eval's raw count (te_calc_avg_num_rel
replaces the accumulated value after the conversion).
"""

from __future__ import annotations

from dataclasses import replace

from workbench.metrics.evaluate import Evaluation
from workbench.metrics.zscore import zscored_summary, zscored_values

__all__ = ["zscored"]


def zscored(ev: Evaluation, table) -> Evaluation:
    """The evaluation with z-scores for values (table: formats.zscores.ZScores);
    settings["zscores"] is True, which the printers read (``Z`` names, %6.4f)."""
    per_query = dict(ev.per_query)
    summary = dict(ev.summary)
    for m in ev.measures:
        if m.is_text or m.aggregation in ("runid", "count"):
            continue
        mean, sd = table.lookup(ev.qids, m.label)
        per_query[m] = zscored_values(m, ev.per_query[m], mean, sd)
        if m.family == "num_rel" and ev.settings.get("complete"):
            continue  # trec_eval's -c count, not converted
        summary[m] = zscored_summary(m, per_query[m])
    return replace(ev, per_query=per_query, summary=summary,
                   settings={**ev.settings, "zscores": True})
