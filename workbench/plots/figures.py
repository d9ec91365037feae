"""The figures behind `--plot` (see the package's docstring)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from workbench.errors import OutputError, UsageError
from workbench.formats.numbers import interval, number

__all__ = ["FORMATS", "STYLES", "check_path", "means_with_intervals", "precision_recall",
           "save", "sorted_differences"]

FORMATS = ("png", "svg", "pdf")
# (line style, marker) per series: every pair distinct, the first ones differing in both
STYLES = [(ls, mk) for mk, ls in zip(
    ["o", "s", "^", "D", "v", "x", "+", "*", "P", "<", ">", "h"],
    itertools.cycle(["-", "--", "-.", ":"]))]


def _style(k: int) -> tuple[str, str]:
    """The k-th series' (line style, marker); past the list, the pairs of every style with
    every marker, still distinct."""
    if k < len(STYLES):
        return STYLES[k]
    styles = ["-", "--", "-.", ":"]
    markers = ["o", "s", "^", "D", "v", "x", "+", "*", "P", "<", ">", "h", "1", "2", "3", "4"]
    pairs = [p for p in itertools.product(styles, markers) if p not in STYLES]
    return pairs[(k - len(STYLES)) % len(pairs)]


def check_path(path) -> str:
    """The file's kind from its suffix (png, svg or pdf), before any work; UsageError else."""
    kind = Path(os.fspath(path)).suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise UsageError(f"--plot {path}: give a .png, .svg or .pdf file")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib (pip install 'workbench[plots]')") from None
    return kind


def _figure(title: str, xlabel: str, ylabel: str):
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def save(fig, path) -> None:
    """Write the figure to `path` (its suffix gives the format), whole or not at all."""
    kind = check_path(path)
    target = os.fspath(path)
    tmp = f"{target}.tmp-{os.getpid()}"
    try:
        fig.savefig(tmp, format=kind)
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def precision_recall(path, curves: dict[str, tuple[Sequence[float], Sequence[float]]],
                     title: str = "Interpolated precision-recall"):
    """One curve per run: name -> (recall levels, interpolated precision)."""
    fig, ax = _figure(title, "recall", "interpolated precision")
    for k, (name, (recall, precision)) in enumerate(curves.items()):
        ls, mk = _style(k)
        ax.plot(list(recall), list(precision), linestyle=ls, marker=mk, label=name)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend()
    save(fig, path)
    return fig


def means_with_intervals(path, names: Sequence[str], means: Sequence[float],
                         lows: Sequence[float] | None, highs: Sequence[float] | None, *,
                         title: str, ylabel: str, series: str = "mean"):
    """Systems along x (in the order given), each mean with its interval as an error bar."""
    import math

    fig, ax = _figure(title, "system", ylabel)
    x = list(range(len(names)))
    ls, mk = _style(0)
    yerr = None
    if lows is not None and highs is not None:
        yerr = [[m - lo if not math.isnan(lo) else 0.0 for m, lo in zip(means, lows)],
                [hi - m if not math.isnan(hi) else 0.0 for m, hi in zip(means, highs)]]
    ax.errorbar(x, list(means), yerr=yerr, linestyle=ls, marker=mk, capsize=4, label=series)
    ax.set_xticks(x, list(names), rotation=30 if len(names) > 6 else 0)
    ax.legend()
    save(fig, path)
    return fig


def sorted_differences(path, a: str, b: str, measure: str, queries: Sequence[str],
                       diffs: Sequence[float], mean: float, low: float, high: float):
    """Per-query differences A − B, sorted (largest first), with their mean and its
    interval as horizontal lines."""
    fig, ax = _figure(f"{a} − {b} per query ({measure})", "query (sorted by difference)",
                      f"{measure}: {a} − {b}")
    x = list(range(len(queries)))
    styles = [_style(k) for k in range(3)]
    ax.plot(x, list(diffs), linestyle=styles[0][0], marker=styles[0][1], label="A − B")
    ax.plot([0, max(len(x) - 1, 0)], [mean, mean], linestyle=styles[1][0], marker=styles[1][1],
            label=f"mean {number(mean)}")
    ax.plot([0, max(len(x) - 1, 0), max(len(x) - 1, 0), 0, 0], [low, low, high, high, low],
            linestyle=styles[2][0], marker=styles[2][1], label=f"interval {interval(low, high)}")
    if len(queries) <= 40:
        ax.set_xticks(x, list(queries), rotation=60)
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.legend()
    save(fig, path)
    return fig


def pace_and_drift(path, names: Sequence[str], docs_per_hour: Sequence[float],
                   first: Sequence[dict], last: Sequence[dict]):
    """`list assessors`: documents per hour per assessor (left), and per assessor the change
    in each grade's share from the first to the last quarter of their grades (right)."""
    import math

    from matplotlib.figure import Figure

    import matplotlib

    matplotlib.use("Agg", force=True)
    fig = Figure(figsize=(10, 4.5), layout="constrained")
    pace, drift = fig.subplots(1, 2)
    fig.suptitle("Assessors: pace and drift")
    ls, mk = _style(0)
    x = list(range(len(names)))
    pace.plot(x, [v if v is not None else math.nan for v in docs_per_hour], linestyle=ls,
              marker=mk, label="documents per hour")
    pace.set_xticks(x, list(names))
    pace.set_title("Pace")
    pace.set_xlabel("assessor")
    pace.set_ylabel("documents per hour")
    pace.legend()
    first = [{int(g): v for g, v in d.items()} for d in first]  # grade keys as ints
    last = [{int(g): v for g, v in d.items()} for d in last]
    grades = sorted({g for d in (*first, *last) for g in d})
    for k, (name, f, la) in enumerate(zip(names, first, last)):
        if not f or not la:
            continue
        ls, mk = _style(k)
        drift.plot(grades, [la.get(g, 0.0) - f.get(g, 0.0) for g in grades],
                   linestyle=ls, marker=mk, label=name)
    drift.axhline(0.0, color="grey", linewidth=0.8)
    drift.set_xticks(grades)
    drift.set_title("Drift: grade shares, last quarter − first quarter")
    drift.set_xlabel("grade")
    drift.set_ylabel("change in share")
    if drift.get_lines()[1:] or grades:
        drift.legend()
    for ax in (pace, drift):
        ax.grid(True, alpha=0.3)
    save(fig, path)
    return fig


def confusion(path, matrix: Sequence[Sequence[int]], scale: Sequence[int], *, title: str,
              reference: str, machine: str, means: dict[str, dict[str, float]] | None = None,
              measure: str = ""):
    """`calibrate`: the confusion matrix, reference grades down, machine grades across, each
    cell's count written in it; with `means` ({system: {"reference", "machine", "hybrid"}}),
    a second panel: each system's mean under the machine's and the hybrid labels against
    its mean under the reference, on the line y = x where they agree."""
    import math

    import numpy as np

    if means:
        import matplotlib

        matplotlib.use("Agg", force=True)
        from matplotlib.figure import Figure

        fig = Figure(figsize=(11, 4.5), layout="constrained")
        ax, scores = fig.subplots(1, 2)
        fig.suptitle(title)
        ax.set_title("Confusion matrix")
        ax.set_xlabel(f"{machine} grade")
        ax.set_ylabel(f"{reference} grade")
    else:
        fig, ax = _figure(title, f"{machine} grade", f"{reference} grade")
    ax.grid(False)
    m = np.asarray(matrix, dtype=float)
    image = ax.imshow(m, cmap="Greys")
    top = m.max() if m.size else 0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            ax.text(j, i, str(int(m[i, j])), ha="center", va="center",
                    color="white" if m[i, j] > top / 2 else "black")
    ax.set_xticks(range(len(scale)), [str(g) for g in scale])
    ax.set_yticks(range(len(scale)), [str(g) for g in scale])
    fig.colorbar(image, ax=ax, label="items")
    if means:
        systems = list(means)

        def column(role):
            return [math.nan if means[s][role] is None else means[s][role] for s in systems]

        x = column("reference")
        for k, (role, label) in enumerate((("machine", f"{machine}'s labels"),
                                           ("hybrid", f"hybrid:{machine}"))):
            ls, mk = _style(k)
            scores.plot(x, column(role), linestyle="none", marker=mk, label=label)
        finite = [v for r in ("reference", "machine", "hybrid") for v in column(r)
                  if not math.isnan(v)]
        lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        scores.plot([lo, hi], [lo, hi], linestyle=":", color="grey", label="y = x")
        scores.set_title(f"Mean {measure} per system")
        scores.set_xlabel(f"under {reference}")
        scores.set_ylabel("under the machine")
        scores.grid(True, alpha=0.3)
        scores.legend()
    save(fig, path)
    return fig


def simulation(path, methods: dict[str, list[dict]], *, measure: str):
    """`simulate`: per pooling method, against the budget, the relevant documents found
    (left) and Kendall's tau-b of the ranking with the full qrels' (right)."""
    import math

    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.5), layout="constrained")
    found, tau = fig.subplots(1, 2)
    fig.suptitle(f"Pooling simulation (runs ranked by {measure})")
    for k, (name, points) in enumerate(methods.items()):
        ls, mk = _style(k)
        budgets = [p["budget"] for p in points]
        found.plot(budgets, [p["relevant_found"] for p in points], linestyle=ls, marker=mk,
                   label=name)
        tau.plot(budgets, [math.nan if p["kendall_tau_b"] is None else p["kendall_tau_b"]
                           for p in points], linestyle=ls, marker=mk, label=name)
    for ax, title, ylabel in ((found, "Relevant documents found", "relevant found"),
                              (tau, "Ranking against the full qrels", "Kendall tau-b")):
        ax.set_title(title)
        ax.set_xlabel("budget (judgments)")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend()
    save(fig, path)
    return fig
