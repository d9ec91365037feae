"""The figures of `--plot FILE` and of the lead screens' export dialog: the numbers a
command or a screen computed, handed to `workbench.plots` (imported only when a plot is
asked for). One home, so that a screen's figure is the command's."""

from __future__ import annotations

import math


def available() -> bool:
    """Whether figures can be drawn (matplotlib, the extra `[plots]`, is installed)."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


RECALL_LEVELS = tuple(i / 10 for i in range(11))  # trec_eval's iprec_at_recall levels


def plot_pr_curves(path, curves: dict[str, list[float]], title: str | None = None) -> object:
    """Interpolated precision-recall curves, one per system, at trec_eval's 11 levels."""
    from workbench.plots import precision_recall

    data = {name: (list(RECALL_LEVELS), [float(v) for v in values]) for name, values in curves.items()}
    return precision_recall(path, data) if title is None else precision_recall(path, data, title)


def check(path) -> None:
    """Refuse a bad --plot file (suffix, matplotlib missing) before any work."""
    if path is not None:
        from workbench.plots.figures import check_path

        check_path(path)


def plot_eval(path, qrels, runs, names, settings) -> object:
    """Interpolated precision-recall curves (trec_eval's iprec_at_recall, 11 levels) of
    each run, as `eval -m iprec_at_recall` gives them."""
    from dataclasses import asdict

    from workbench.metrics.measures import parse_measures
    from workbench.plots import precision_recall

    ms = parse_measures(["iprec_at_recall"], compat=settings.compat)
    if qrels.startswith("irds:"):
        from workbench.evaluation.datasets import evaluate_on_dataset

        results = evaluate_on_dataset(qrels[len("irds:"):], runs, ms, settings, jobs=1)
    else:
        from workbench.evaluation import evaluate_files

        results = evaluate_files(qrels, runs, ms, **asdict(settings), jobs=1)
    curves = {}
    for name, r in zip(names, results):
        ev = r.evaluation
        curves[name] = ([float(m.label.rsplit("_", 1)[1]) for m in ev.measures],
                        [float(ev.summary[m]) for m in ev.measures])
    return precision_recall(path, curves)


def plot_pair(path, report) -> object:
    from workbench.plots import sorted_differences

    return sorted_differences(path, report.a, report.b, report.measure, list(report.queries),
                              report.diffs.tolist(), report.mean_diff, report.low, report.high)


def plot_ranking(path, report) -> object:
    """The systems of the first source, best first, with their means (`compare`)."""
    from workbench.plots import means_with_intervals

    source = next(iter(report.rankings))
    order = report.rankings[source]
    means = [report.means[source][s] for s in order]
    return means_with_intervals(path, order, means, None, None,
                                title=f"Systems ranked by {report.measure} ({source})",
                                ylabel=f"mean {report.measure}")


def plot_means(path, names, means, measure, lows=None, highs=None, title=None) -> object:
    """Per-system means (`score`), with intervals where the command has them."""
    from workbench.plots import means_with_intervals

    keep = [i for i, m in enumerate(means) if not math.isnan(m)]
    return means_with_intervals(
        path, [names[i] for i in keep], [means[i] for i in keep],
        [lows[i] for i in keep] if lows else None, [highs[i] for i in keep] if highs else None,
        title=title or f"Mean {measure} per system", ylabel=f"mean {measure}")


def plot_score(path, table, systems, intervals=None) -> object:
    """`score`: each system's mean of the first measure in the printed order (`systems`), with
    the interval `score --ci` printed, or the seeded percentile bootstrap of
    campaign/scoring/intervals.py when no --ci was asked for."""
    from workbench.campaign.scoring.intervals import score_intervals

    if intervals is None:
        intervals = score_intervals(table, "bootstrap", resamples=2000, seed=0)
    m, label = table.measures[0], table.labels[0]
    index = {s: i for i, s in enumerate(table.systems)}
    means, lows, highs = [], [], []
    for system in systems:
        i = index[system]
        means.append(float(table.means[m][i]) if table.present[i].any() else math.nan)
        lo, hi = intervals.of(m, i) or (math.nan, math.nan)
        lows.append(lo)
        highs.append(hi)
    return plot_means(path, list(systems), means, label, lows, highs,
                      title=f"Mean {label} per system against {table.source} "
                            f"(95% {intervals.method} interval)")


def plot_assessors(path, table) -> object:
    """`list assessors`: pace and drift of each assessor, from the listing's rows."""
    from workbench.plots.figures import pace_and_drift

    rows = [dict(zip(table.header, row)) for row in table.rows]
    return pace_and_drift(path, [r["assessor"] for r in rows], [r["docs_per_hour"] for r in rows],
                          [r["grades_first_quarter"] for r in rows],
                          [r["grades_last_quarter"] for r in rows])


def plot_calibration(path, report) -> object:
    """`calibrate`: the confusion matrix of the machine against the reference, and each
    system's mean under the machine's and the hybrid labels against the reference's."""
    from workbench.plots.figures import confusion

    doc = report.to_json()
    return confusion(path, doc["confusion"], doc["scale"],
                     title=f"{doc['machine']} against {doc['against']} ({doc['items']} items)",
                     reference=doc["against"], machine=doc["machine"],
                     means=doc["rankings"]["means"], measure=doc["measure"])


def plot_simulation(path, results) -> object:
    """`simulate`: each method's points, as `simulate --format json` gives them."""
    from workbench.plots.figures import simulation

    docs = [r.to_json() for r in results]
    return simulation(path, {d["method"]: d["points"] for d in docs}, measure=docs[0]["measure"])
