"""Calibration of a machine assessor against people (`workbench calibrate`, the lead's
calibration screen): where can its labels be trusted, and does the system ranking survive?

On the items both the machine and the reference (`against`: the people's majority, or one
assessor) graded:
- Cohen's kappa on relevant / not relevant (grade >= the campaign's threshold, trec_eval's
  -l) with the Fleiss-Cohen-Everitt 95 % interval, and the linear-weighted kappa on the
  grades (distances on the scale's values) with a percentile bootstrap interval;
- the confusion matrix (rows the reference's grade, columns the machine's, in scale order),
  and per grade the machine's precision (of the items it gave g, the share the reference
  gave g) and recall (of the items the reference gave g, the share the machine gave g);
- leniency: the mean of machine grade minus reference grade (> 0: the machine is more
  generous), with a bootstrap interval;
- binary kappa per query, with the weakest queries listed;
- the systems ranked by `measure` under the reference, the machine's own labels and the
  hybrid qrels (people where they judged, the machine elsewhere), on the queries all three
  judged: Kendall tau-b, tau_AP (the reference ranking as reference) and RBO (p = 0.9),
  each with a percentile bootstrap interval over queries, and whether the top 3 and the
  top 10 systems are the same systems;
- when the machine has a stratified validation sample, the same agreement figures weighted
  by 1 / inclusion probability over the sampled items people judged: estimates for every
  item the machine labelled (Hajek), with a bootstrap within strata.

Bootstrap intervals over items resample the cells of the confusion table (items in one cell
are interchangeable), so their cost does not grow with the number of items. Seeded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from workbench.campaign.assessors.roster import known_assessor
from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import qrels_ids
from workbench.campaign.scoring.sources import CONSENSUS_METHODS, QrelsSource
from workbench.defaults import CALIBRATE_MEASURE
from workbench.errors import UsageError
from workbench.metrics import agreement as agr
from workbench.metrics import agreement_ci as aci
from workbench.metrics import correlation as corr
from workbench.metrics.weighting import inverse_probability_weights
from workbench.store import external_ids
from workbench.store.machine import MACHINE, assessor_kind
from workbench.store.validation import validation_items

RESAMPLES = 1000
WEAKEST = 5  # queries listed as the weakest
TOPS = (3, 10)


@dataclass(frozen=True)
class Agreement:
    """The agreement figures over a set of items (plain, or weighted by 1 / probability)."""

    items: int
    kappa_binary: float
    kappa_binary_ci: tuple[float, float]
    kappa_weighted: float
    kappa_weighted_ci: tuple[float, float]
    confusion: np.ndarray  # (grades x grades) counts or weighted counts; rows reference
    leniency: float
    leniency_ci: tuple[float, float]
    precision: np.ndarray  # per grade (columns): diagonal / column sum
    recall: np.ndarray  # per grade (rows): diagonal / row sum


@dataclass(frozen=True)
class RankingAgreement:
    tau_b: float
    tau_b_ci: tuple[float, float]
    tau_ap: float
    tau_ap_ci: tuple[float, float]
    rbo: float
    rbo_ci: tuple[float, float]
    # k -> (same k systems? None where there are k systems or fewer, how many shared)
    top: dict[int, tuple[bool | None, int]]


@dataclass(frozen=True)
class CalibrationReport:
    machine: str
    against: str
    measure: str
    threshold: int
    scale: tuple[int, ...]
    agreement: Agreement
    per_query: list[tuple[str, int, float]]  # (query, items, kappa_binary)
    weakest: list[str]
    rankings: dict[str, RankingAgreement]  # human_vs_machine, human_vs_hybrid
    ranking_queries: int
    ranking_systems: int
    orders: dict[str, list[str]]  # source label -> systems best first
    sample: dict | None  # the validation sample: strategy, items, judged
    weighted: Agreement | None
    warnings: list[str] = field(default_factory=list)
    reference_machine: bool = False  # --against names another machine, not people
    # the machine against itself across `autojudge --samples N` (None without samples):
    # samples, items, fleiss_kappa, unanimous (campaign/machine/self_consistency.py)
    self_consistency: dict | None = None
    # each ranked system's mean under the reference, the machine and the hybrid qrels
    means: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def items(self) -> int:
        return self.agreement.items

    def lines(self) -> list[tuple[str, str]]:
        """The report as (text, style) lines: what `calibrate --format table` prints and the
        lead's calibration screen shows (style '' plain, 'bold', 'dim' or 'yellow')."""
        a = self.agreement
        out: list[tuple[str, str]] = [
            (f"{self.machine} against {self.against}: {a.items} items judged by both "
             f"(relevant: grade >= {self.threshold})", "bold"),
            (f"kappa binary    {_fmt(a.kappa_binary)}  95% CI {_fmt_ci(a.kappa_binary_ci)}  "
             f"({agr.landis_koch(a.kappa_binary)})", ""),
            (f"kappa weighted  {_fmt(a.kappa_weighted)}  95% CI {_fmt_ci(a.kappa_weighted_ci)}  (linear)", ""),
            (f"leniency        {_fmt(a.leniency, signed=True)}  95% CI {_fmt_ci(a.leniency_ci)}  "
             f"(mean machine grade minus {self._who} grade; > 0: the machine is more generous)", ""),
            ("", ""),
        ]
        out += _confusion_lines(a, self.scale, self._who)
        out.append(("", ""))
        out.append((f"Rankings by {self.measure} on {self.ranking_queries} queries, "
                    f"{self.ranking_systems} systems (95% bootstrap CI over queries)", "bold"))
        for name, r in self.rankings.items():
            tops = ", ".join(
                f"top {k} n/a (only {self.ranking_systems} systems)" if same is None
                else f"top {k} {'same' if same else f'differs ({shared} of {k} shared)'}"
                for k, (same, shared) in r.top.items())
            shown = name.replace("human", "reference" if self.reference_machine else "human")
            out.append((f"{shown.replace('_', ' '):<17} tau_b {_fmt(r.tau_b)} {_fmt_ci(r.tau_b_ci)}  "
                        f"tau_ap {_fmt(r.tau_ap)} {_fmt_ci(r.tau_ap_ci)}  rbo {_fmt(r.rbo)} "
                        f"{_fmt_ci(r.rbo_ci)}  {tops}", ""))
        out.append(("", ""))
        weak = [row for row in self.per_query if row[0] in set(self.weakest)]
        weak.sort(key=lambda row: (row[2], row[0]))
        out.append((f"Weakest queries (binary kappa), of {len(self.per_query)}:", "bold"))
        out += [(f"  {q:<20} kappa {_fmt(k)}  ({n} items)", "") for q, n, k in weak] or [("  none", "dim")]
        if self.sample is not None:
            out.append(("", ""))
            out.append((f"Validation sample ({self.sample['strategy']}): {self.sample['judged']} of "
                        f"{self.sample['items']} items judged by people", "bold"))
            if self.weighted is not None:
                w = self.weighted
                out.append((f"weighted by 1/inclusion probability ({w.items} items): kappa binary "
                            f"{_fmt(w.kappa_binary)} {_fmt_ci(w.kappa_binary_ci)}, kappa weighted "
                            f"{_fmt(w.kappa_weighted)} {_fmt_ci(w.kappa_weighted_ci)}, leniency "
                            f"{_fmt(w.leniency, signed=True)} {_fmt_ci(w.leniency_ci)}", ""))
        if self.self_consistency is not None:
            sc = self.self_consistency
            out.append(("", ""))
            out.append((f"Self-consistency over {sc['samples']} samples ({sc['items']} items): Fleiss' kappa "
                        f"{_fmt(sc['fleiss_kappa'])}, unanimous {sc['unanimous']:.1%}", "bold"))
        for warning in self.warnings:
            out.append((f"warning: {warning}", "yellow"))
        return out

    @property
    def _who(self) -> str:
        return "reference" if self.reference_machine else "human"

    def to_json(self) -> dict:
        """`calibrate --format json` (docs/architecture.md#command-line-contract; NaN -> null)."""
        a = self.agreement
        return {
            "machine": self.machine,
            "against": self.against,
            "measure": self.measure,
            "threshold": self.threshold,
            "scale": list(self.scale),
            **_agreement_json(a, self.scale),
            "per_query": [{"query": q, "items": n, "kappa_binary": _num(k)} for q, n, k in self.per_query],
            "weakest_queries": list(self.weakest),
            "rankings": {
                "queries": self.ranking_queries,
                "systems": self.ranking_systems,
                **{name: _ranking_json(r) for name, r in self.rankings.items()},
                "means": {system: {k: _num(v) for k, v in row.items()}
                          for system, row in self.means.items()},
            },
            "sample": None if self.sample is None else {
                **self.sample,
                "weighted": None if self.weighted is None else _agreement_json(self.weighted, self.scale),
            },
            "self_consistency": None if self.self_consistency is None else {
                **self.self_consistency, "fleiss_kappa": _num(self.self_consistency["fleiss_kappa"])},
            "warnings": list(self.warnings),
        }


def _num(v) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _fmt(v: float, signed: bool = False) -> str:
    if v is None or math.isnan(v):
        return "  n/a "
    return f"{v:+.3f}" if signed else f"{v:.3f}"


def _fmt_ci(pair) -> str:
    return f"[{_fmt(pair[0]).strip()}, {_fmt(pair[1]).strip()}]"


def _confusion_lines(a: Agreement, scale, who: str = "human") -> list[tuple[str, str]]:
    head = f"{who} \\ machine".ljust(16) + "".join(f"{g:>8}" for g in scale) + "  recall"
    rows = [(f"Confusion (rows {who} grade, columns machine grade)", "bold"), (head, "dim")]
    for i, g in enumerate(scale):
        cells = "".join(f"{v:>8.0f}" if float(v).is_integer() else f"{v:>8.1f}" for v in a.confusion[i])
        rows.append((f"{g:>16}" + cells + f"  {_fmt(a.recall[i])}", ""))
    rows.append((f"{'precision':>16}" + "".join(f"{_fmt(p):>8}" for p in a.precision), ""))
    return rows


def _ci(pair) -> list:
    return [_num(pair[0]), _num(pair[1])]


def _agreement_json(a: Agreement, scale) -> dict:
    counts = a.confusion
    integral = np.allclose(counts, np.round(counts))
    return {
        "items": a.items,
        "kappa_binary": _num(a.kappa_binary),
        "kappa_binary_ci": _ci(a.kappa_binary_ci),
        "kappa_weighted": _num(a.kappa_weighted),
        "kappa_weighted_ci": _ci(a.kappa_weighted_ci),
        "confusion": (np.round(counts).astype(np.int64).tolist() if integral
                      else np.round(counts, 4).tolist()),
        "leniency": _num(a.leniency),
        "leniency_ci": _ci(a.leniency_ci),
        "per_grade": [{"grade": int(g), "precision": _num(p), "recall": _num(r)}
                      for g, p, r in zip(scale, a.precision.tolist(), a.recall.tolist())],
    }


def _ranking_json(r: RankingAgreement) -> dict:
    out = {"tau_b": _num(r.tau_b), "tau_b_ci": _ci(r.tau_b_ci), "tau_ap": _num(r.tau_ap),
           "tau_ap_ci": _ci(r.tau_ap_ci), "rbo": _num(r.rbo), "rbo_ci": _ci(r.rbo_ci)}
    for k, (same, shared) in r.top.items():
        out[f"top{k}_same"] = same
        out[f"top{k}_shared"] = shared
    return out


# ---------------------------------------------------------------- agreement on items


def _tables(h_code: np.ndarray, m_code: np.ndarray, k: int, weight: np.ndarray | None,
            stratum: np.ndarray | None, resamples: int, seed: int):
    """(point table, resampled tables R x k x k): the confusion table of codes (optionally
    weighted) and its bootstrap, by cells (and strata)."""
    cell = h_code * k + m_code
    if weight is None:
        point = np.bincount(cell, minlength=k * k).astype(np.float64)
        sizes = point.copy()
        boot = aci.group_resamples(sizes, resamples, seed)
        return point.reshape(k, k), boot.reshape(-1, k, k)
    # groups: (stratum, cell); every item of a stratum has the same weight
    levels, s_idx = np.unique(stratum, return_inverse=True)
    group = s_idx * (k * k) + cell
    sizes = np.bincount(group, minlength=levels.size * k * k)
    w_of_stratum = np.zeros(levels.size)
    w_of_stratum[s_idx] = weight
    group_w = np.repeat(w_of_stratum, k * k)
    point = (sizes * group_w).reshape(levels.size, k * k).sum(axis=0)
    boot = aci.group_resamples(sizes, resamples, seed, strata=np.repeat(np.arange(levels.size), k * k))
    boot = (boot * group_w).reshape(resamples, levels.size, k * k).sum(axis=1)
    return point.reshape(k, k), boot.reshape(-1, k, k)


def _agreement(h: np.ndarray, m: np.ndarray, scale: np.ndarray, level: int, *,
               weight: np.ndarray | None = None, stratum: np.ndarray | None = None,
               resamples: int = RESAMPLES, seed: int = 0) -> Agreement:
    k = scale.size
    h_code, m_code = np.searchsorted(scale, h), np.searchsorted(scale, m)
    table, boot = _tables(h_code, m_code, k, weight, stratum, resamples, seed)
    relevant = scale >= level
    # the binary table: grades collapsed at the threshold (rows reference, columns machine)
    fold = np.stack([~relevant, relevant], axis=1).astype(np.float64)  # k x 2
    binary = fold.T @ table @ fold
    diff = scale[None, :].astype(np.float64) - scale[:, None]  # machine minus reference
    n = table.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        leniency = float((table * diff).sum() / n) if n else math.nan
        leniency_boot = (boot * diff).sum(axis=(1, 2)) / boot.sum(axis=(1, 2))
        precision = np.diag(table) / table.sum(axis=0)
        recall = np.diag(table) / table.sum(axis=1)
    if weight is None:
        kappa_b = agr.cohen_kappa(agr.binarize(h, level), agr.binarize(m, level), categories=[0, 1])
        kappa_b_ci = aci.cohen_kappa_ci(agr.binarize(h, level), agr.binarize(m, level), categories=[0, 1])
        kappa_w = agr.weighted_kappa(h, m, "linear", categories=scale)
    else:
        kappa_b = float(agr.kappa_from_tables(binary))
        kappa_b_ci = aci.percentile_interval(agr.kappa_from_tables(fold.T @ boot @ fold))
        kappa_w = float(agr.weighted_kappa_from_tables(table, scale, "linear"))
    kappa_w_ci = aci.percentile_interval(agr.weighted_kappa_from_tables(boot, scale, "linear"))
    return Agreement(
        items=int(h.size),
        kappa_binary=float(kappa_b),
        kappa_binary_ci=tuple(kappa_b_ci) if n else (math.nan, math.nan),
        kappa_weighted=float(kappa_w),
        kappa_weighted_ci=kappa_w_ci if n else (math.nan, math.nan),
        confusion=table,
        leniency=leniency,
        leniency_ci=aci.percentile_interval(leniency_boot) if n else (math.nan, math.nan),
        precision=precision,
        recall=recall,
    )


def _per_query(q: np.ndarray, h: np.ndarray, m: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query ids, items, binary kappa) per query: one 2 x 2 table per query at once."""
    keys, idx = np.unique(q, return_inverse=True)
    cell = (h >= level).astype(np.int64) * 2 + (m >= level)
    tables = np.bincount(idx * 4 + cell, minlength=keys.size * 4).reshape(keys.size, 2, 2)
    return keys, tables.sum(axis=(1, 2)), agr.kappa_from_tables(tables)


# ---------------------------------------------------------------- rankings


def machine_source(machine: str) -> QrelsSource:
    """The labels of the machine calibrated: an assessor's, or a panel's (`panel:NAME`)."""
    return QrelsSource.parse(machine) if machine.startswith("panel:") else QrelsSource.assessor(machine)


def _rankings(db: Database, machine: str, reference: QrelsSource, measure: str, *,
              resamples: int, seed: int):
    """(correlations by pair, queries, systems, orders, means, warnings): the systems under the
    reference, the machine and the hybrid qrels, compared on the queries all three judged;
    a ranking whose systems all score the same makes its correlations undefined (NaN, and a
    warning)."""
    from workbench.campaign.agreement.degenerate import constant_ranking
    from workbench.campaign.comparison.systems import source_scores
    from workbench.campaign.scoring.scores import load_runs, score_campaign

    with db.read() as s:
        runs = load_runs(s, scores=False)
    sources = [reference, machine_source(machine), QrelsSource.hybrid(machine)]
    tables = [score_campaign(db, [measure], src, runs=runs) for src in sources]
    judged = set(tables[0].queries).intersection(*(t.queries for t in tables[1:]))
    common = [q for q in tables[0].queries if q in judged]
    scores = [source_scores(t, measure, common) for t in tables]
    ok = np.logical_and.reduce([sc.scored for sc in scores]) if common else np.zeros(0, bool)
    systems = [n for n, keep in zip(scores[0].systems, ok) if keep]
    orders = {src.label: corr.rank_order(systems, sc.means[ok]) for src, sc in zip(sources, scores)}
    by_system = {name: {role: float(sc.means[ok][i]) for role, sc in
                        zip(("reference", "machine", "hybrid"), scores)}
                 for i, name in enumerate(systems)}
    # bootstrap over queries: each resample re-averages every system over the drawn queries
    weights = aci.resample_counts(len(common), resamples, seed)  # R x Q
    boot_means = []
    for sc in scores:
        v = np.where(sc.present, sc.values, 0.0)[ok]
        with np.errstate(divide="ignore", invalid="ignore"):
            boot_means.append((v @ weights.T) / (sc.present[ok] @ weights.T))  # systems x R
    out = {}
    for name, j in (("human_vs_machine", 1), ("human_vs_hybrid", 2)):
        out[name] = _ranking_pair(systems, scores[0].means[ok], scores[j].means[ok],
                                  boot_means[0], boot_means[j])
    warnings = [w for w in (constant_ranking(sc.means[ok], src.label)
                            for src, sc in zip(sources, scores)) if w]
    if warnings:  # tau and tau_AP of a constant ranking are 0/0: undefined, not a number
        flat = [i for i, sc in enumerate(scores) if constant_ranking(sc.means[ok], "")]
        nan2 = (math.nan, math.nan)
        for name, j in (("human_vs_machine", 1), ("human_vs_hybrid", 2)):
            if 0 in flat or j in flat:
                r = out[name]
                out[name] = RankingAgreement(math.nan, nan2, math.nan, nan2, r.rbo, r.rbo_ci, r.top)
    return out, len(common), len(systems), orders, by_system, warnings


def _ranking_pair(systems: list[str], ref: np.ndarray, other: np.ndarray,
                  ref_boot: np.ndarray, other_boot: np.ndarray) -> RankingAgreement:
    nan2 = (math.nan, math.nan)
    if len(systems) < 2:
        return RankingAgreement(math.nan, nan2, math.nan, nan2, math.nan, nan2,
                                {k: (False, 0) for k in TOPS})

    point = (corr.kendall_tau(ref, other, "b", tie_tol=corr.MEAN_TIE_TOL), corr.tau_ap_b(ref, other),
             corr.rbo(corr.rank_order(systems, ref), corr.rank_order(systems, other)))
    # every resample at once (systems x R -> R x systems); a resample that left a system
    # without a scored query is dropped
    x, y = ref_boot.T, other_boot.T
    ok = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    x, y = x[ok], y[ok]
    ci = [aci.percentile_interval(corr.kendall_tau_b_rows(x, y)),
          aci.percentile_interval(corr.tau_ap_b_rows(x, y)),
          aci.percentile_interval(corr.rbo_rows(systems, x, y))]
    a, b = corr.rank_order(systems, ref), corr.rank_order(systems, other)
    top = {}
    for k in TOPS:
        shared = len(set(a[:k]) & set(b[:k]))
        # with k systems or fewer the top k is every system: "same" says nothing
        top[k] = (None if len(systems) <= k else shared == k, shared)
    return RankingAgreement(point[0], ci[0], point[1], ci[1], point[2], ci[2], top)


# ---------------------------------------------------------------- the use case


def reference_source(against: str) -> QrelsSource:
    """`--against`: majority (or mean, adjudicated), assessor:NAME or a bare assessor name."""
    if against in CONSENSUS_METHODS or ":" in against:
        source = QrelsSource.parse(against)
        if source.kind == "hybrid":
            raise UsageError("calibrate compares a machine with people: --against is majority or an assessor")
        return source
    return QrelsSource.assessor(against)


def calibrate(
    db: Database,
    machine: str,
    against: str = "majority",
    measure: str | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> CalibrationReport:
    """The calibration report of `machine` against `against` (see the module docstring)."""
    from workbench.campaign.scale import show_scale
    from workbench.campaign.comparison.systems import measure_label
    from workbench.campaign.assessors.visibility import ASSESSOR_SCREEN, campaign_scores_shown
    from workbench.campaign.settings import campaign_threshold

    reference = reference_source(against)
    if reference == QrelsSource.assessor(machine):
        raise UsageError("calibrate compares the machine with someone else: --against names it")
    if measure is not None and not measure.strip():
        raise UsageError(f"-m needs a measure name (leave -m out for {CALIBRATE_MEASURE})")
    measure = measure or CALIBRATE_MEASURE
    measure_label(measure)  # one measure, or a usage error before any work
    with db.read() as s:
        reference_machine = (reference.kind == "assessor"
                             and assessor_kind(s, known_assessor(s, reference.name)) == MACHINE)
        if machine.startswith("panel:"):  # a judge panel: derived labels, no validation sample
            mid = -1
        else:
            mid = known_assessor(s, machine)
            if assessor_kind(s, mid) != MACHINE:
                raise UsageError(f"{machine!r} is not a machine assessor")
        hq, hd, hg = qrels_ids(s, reference)
        mq, md, mg = qrels_ids(s, machine_source(machine))
        sample = validation_items(s, mid)
        from workbench.campaign.machine.self_consistency import sample_agreement

        consistency = sample_agreement(s, mid) if mid != -1 else None
        width = int(max(hd.max(initial=0), md.max(initial=0), sample.document_id.max(initial=0))) + 1
        _, hi, mi = np.intersect1d(hq * width + hd, mq * width + md, assume_unique=True, return_indices=True)
        q, d, h, m = hq[hi], hd[hi], hg[hi], mg[mi]
        query_keys = np.unique(q)
        query_names = external_ids.query_ext_ids(s, query_keys).tolist()
    level = campaign_threshold(db)
    scale = np.union1d(np.array([g for g, _, _ in show_scale(db)], dtype=np.int64), np.union1d(h, m))
    report_agreement = _agreement(h, m, scale, level, resamples=resamples, seed=seed)
    warnings: list[str] = []
    report_agreement = _degenerate(report_agreement, h, m, level, reference.label, machine, warnings)

    keys, n_items, kappas = _per_query(q, h, m, level)
    name_of = dict(zip(query_keys.tolist(), query_names))
    per_query = sorted(((str(name_of[k]), int(n), float(x)) for k, n, x in zip(keys.tolist(), n_items.tolist(), kappas.tolist())),
                       key=lambda row: row[0])
    defined = [row for row in per_query if not math.isnan(row[2])]
    weakest = [row[0] for row in sorted(defined, key=lambda row: (row[2], row[0]))[:WEAKEST]]

    rankings, n_queries, n_systems, orders, means, ranking_warnings = _rankings(
        db, machine, reference, measure, resamples=resamples, seed=seed)
    warnings += ranking_warnings
    if report_agreement.items < aci.SMALL_N:
        warnings.append(f"only {report_agreement.items} items judged by both (fewer than "
                        f"{aci.SMALL_N}): the intervals are wide and the kappas unreliable")
    if n_queries < 2 or n_systems < 2:
        warnings.append("too few queries or systems judged under every source to compare rankings")
    sample_info, weighted = None, None
    if len(sample):
        sample_keys = sample.query_id * width + sample.document_id  # sorted (query, document)
        in_sample = np.isin(q * width + d, sample_keys)
        strategy = ", ".join(sorted(set(sample.strategy.tolist())))
        sample_info = {"strategy": strategy, "items": len(sample), "judged": int(in_sample.sum())}
        if campaign_scores_shown(db, ASSESSOR_SCREEN):
            # what the judging screen may show now (assessors/visibility.py); the settings
            # keep no history: only the present setting can be checked
            warnings.append("the campaign is not blind now: people may have judged the "
                            "validation sample seeing per-system scores, so their grades may "
                            "lean on them (the settings keep no history of blindness: a "
                            "campaign blind now may not have been blind while it was judged)")
        probs = sample.probability
        pos = np.searchsorted(sample_keys, q * width + d)
        pos = np.minimum(pos, len(sample) - 1)
        p_item = np.where(in_sample, probs[pos], np.nan)
        weighted_items = in_sample & np.isfinite(p_item)
        probability_sample = bool(np.isfinite(probs).any())
        if weighted_items.any():
            weighted = _agreement(h[weighted_items], m[weighted_items], scale, level,
                                  weight=inverse_probability_weights(p_item[weighted_items]),
                                  stratum=sample.stratum[pos][weighted_items],
                                  resamples=resamples, seed=seed)
        elif probability_sample:
            warnings.append(f"none of the {len(sample)} items of the validation sample "
                            f"({strategy}) is judged by people yet: nothing to weight")
        else:
            warnings.append("the validation sample is a disagreement sample (no probability "
                            "sample): it finds errors, but its agreement is no estimate for "
                            "all the machine's labels, and nothing is weighted")
        if sample_info["judged"] < len(sample):
            warnings.append(f"{sample_info['judged']} of the {len(sample)} validation items "
                            "are judged so far")
    return CalibrationReport(
        machine=machine, against=reference.label, measure=measure, threshold=level,
        scale=tuple(int(g) for g in scale.tolist()), agreement=report_agreement,
        per_query=per_query, weakest=weakest, rankings=rankings, ranking_queries=n_queries,
        ranking_systems=n_systems, orders=orders, means=means, sample=sample_info, weighted=weighted,
        warnings=warnings, reference_machine=reference_machine, self_consistency=consistency,
    )


def _degenerate(a: Agreement, h: np.ndarray, m: np.ndarray, level: int, ref: str, machine: str,
                warnings: list[str]) -> Agreement:
    """Kappas of a constant rater (degenerate.py): undefined -> NaN (null), 0 by construction
    -> the interval NaN (null); each with its warning."""
    from dataclasses import replace

    from workbench.campaign.agreement.degenerate import BY_CONSTRUCTION, UNDEFINED, kappa_warning

    nan2 = (math.nan, math.nan)
    changes = {}
    for key, x, y, coefficient in (
            ("kappa_binary", (h >= level).astype(int), (m >= level).astype(int), "binary kappa"),
            ("kappa_weighted", h, m, "weighted kappa")):
        kind, sentence = kappa_warning(x, y, ref, machine, coefficient)
        if kind == UNDEFINED:
            changes[key], changes[f"{key}_ci"] = math.nan, nan2
        elif kind == BY_CONSTRUCTION:
            changes[f"{key}_ci"] = nan2
        if kind is not None:
            warnings.append(sentence)
    return replace(a, **changes) if changes else a



__all__ = ["Agreement", "CalibrationReport", "RankingAgreement", "calibrate", "reference_source"]
