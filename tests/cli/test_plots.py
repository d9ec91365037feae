"""`--plot FILE` on eval, compare (--pair) and score: a valid file of the kind its suffix
names, the figure's artists hold the command's JSON numbers, and no two series share a
line style and marker."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUNS = [str(EX / "runs" / f"{n}.run") for n in ("bm25", "qld", "tfidf")]
MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


@pytest.fixture
def figures(monkeypatch):
    """The figures the commands save, in order."""
    import workbench.plots.figures as figs

    saved = []
    real = figs.save

    def save(fig, path):
        saved.append(fig)
        real(fig, path)

    monkeypatch.setattr(figs, "save", save)
    return saved


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _valid(path: Path, kind: str) -> None:
    data = path.read_bytes()
    assert data.startswith(MAGIC[kind]), data[:20]
    if kind == "svg":
        assert b"<svg" in data[:2000]


def _distinct_styles(ax) -> None:
    # the series (not an error bar's caps, which have no line)
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() not in ("None", "")]
    pairs = [(ln.get_linestyle(), ln.get_marker()) for ln in lines]
    assert len(set(pairs)) == len(pairs), pairs
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()


@pytest.mark.parametrize("kind", ["png", "svg", "pdf"])
def test_eval_plots_the_precision_recall_curves_eval_prints(capsys, tmp_path, figures, kind):
    plot = tmp_path / f"pr.{kind}"
    out = _run(capsys, "eval", EX / "bob.qrels", *RUNS, "-m", "iprec_at_recall", "--format",
               "json", "--plot", plot)
    _valid(plot, kind)
    (fig,) = figures
    ax = fig.axes[0]
    _distinct_styles(ax)
    runs = json.loads(out)["runs"]
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == [r["run"] for r in runs]
    for ln, r in zip(lines, runs):
        assert list(ln.get_ydata()) == list(r["summary"].values())
        assert list(ln.get_xdata()) == [float(k.rsplit("_", 1)[1]) for k in r["summary"]]


def test_compare_pair_plots_the_sorted_differences(capsys, tmp_path, figures):
    plot = tmp_path / "pair.png"
    doc = json.loads(_run(capsys, "compare", "--qrels", EX / "bob.qrels", "--run", *RUNS,
                          "-m", "map", "--pair", "bm25", "qld", "--per-query", "--format",
                          "json", "--plot", plot))
    _valid(plot, "png")
    ax = figures[0].axes[0]
    _distinct_styles(ax)
    diffs, mean, interval = ax.get_lines()[:3]
    assert list(diffs.get_ydata()) == [r["diff"] for r in doc["per_query"]]
    assert set(mean.get_ydata()) == {doc["mean_diff"]}
    assert set(interval.get_ydata()) == {doc["ci"]["low"], doc["ci"]["high"]}
    assert [t.get_text() for t in ax.get_xticklabels()] == [r["query"] for r in doc["per_query"]]


def test_compare_and_score_plot_the_means(capsys, tmp_path, figures):
    doc = json.loads(_run(capsys, "compare", "--qrels", EX / "bob.qrels", "--run", *RUNS,
                          "-m", "map", "--format", "json", "--plot", tmp_path / "rank.svg"))
    _valid(tmp_path / "rank.svg", "svg")
    ax = figures[0].axes[0]
    source = next(iter(doc["rankings"]))
    assert [t.get_text() for t in ax.get_xticklabels()] == doc["rankings"][source]
    assert list(ax.get_lines()[0].get_ydata()) == [doc["means"][source][s]
                                                   for s in doc["rankings"][source]]
    db = tmp_path / "s.sqlite"
    shutil.copyfile(ROOT / "sample_db" / "sample.sqlite", db)
    score = json.loads(_run(capsys, "score", "--db", db, "-m", "nDCG@10", "--format", "json",
                            "--plot", tmp_path / "score.pdf"))
    _valid(tmp_path / "score.pdf", "pdf")
    ax = figures[1].axes[0]
    _distinct_styles(ax)
    assert [t.get_text() for t in ax.get_xticklabels()] == [s["system"] for s in score["systems"]]
    assert list(ax.get_lines()[0].get_ydata()) == [s["mean"]["nDCG@10"] for s in score["systems"]]
    bars = ax.collections[0].get_segments()  # the intervals: around each mean
    assert all(lo[1] <= m <= hi[1] for (lo, hi), m in zip(bars, ax.get_lines()[0].get_ydata()))


def test_a_bad_plot_file_is_refused_before_any_work(capsys, tmp_path):
    code = main(["eval", str(EX / "bob.qrels"), RUNS[0], "--plot", str(tmp_path / "x.gif")])
    assert code == 2 and "png, .svg or .pdf" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


def test_many_series_keep_distinct_styles():
    from workbench.plots.figures import _style

    pairs = [_style(k) for k in range(60)]
    assert len(set(pairs)) == 60


def test_list_assessors_plots_pace_and_drift(capsys, tmp_path, figures):
    db = tmp_path / "s.sqlite"
    shutil.copyfile(ROOT / "sample_db" / "sample.sqlite", db)
    rows = json.loads(_run(capsys, "list", "assessors", "--db", db, "--format", "json",
                           "--plot", tmp_path / "a.png"))
    _valid(tmp_path / "a.png", "png")
    pace, drift = figures[0].axes[:2]
    for ax in (pace, drift):
        _distinct_styles(ax)
    assert list(pace.get_lines()[0].get_ydata()) == [r["docs_per_hour"] for r in rows]
    series = [ln for ln in drift.get_lines() if ln.get_label() in {r["assessor"] for r in rows}]
    assert [ln.get_label() for ln in series] == [r["assessor"] for r in rows]
    for ln, r in zip(series, rows):
        want = [r["grades_last_quarter"].get(str(int(g)), 0.0)
                - r["grades_first_quarter"].get(str(int(g)), 0.0) for g in ln.get_xdata()]
        assert list(ln.get_ydata()) == want
    assert any(v != 0 for ln in series for v in ln.get_ydata())
    code = main(["list", "runs", "--db", str(db), "--plot", str(tmp_path / "r.png")])
    assert code == 2


def test_calibrate_plots_the_confusion_matrix(capsys, db, db_url, tmp_path, figures):
    from tests.campaign.machine_campaign import build_machine_campaign

    build_machine_campaign(db, tmp_path / "f", human_queries=5)
    doc = json.loads(_run(capsys, "calibrate", "--db", db_url, "--machine", "llm", "--format",
                          "json", "--plot", tmp_path / "c.svg"))
    _valid(tmp_path / "c.svg", "svg")
    ax = figures[0].axes[0]
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert ax.images[0].get_array().tolist() == doc["confusion"]
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(g) for g in doc["scale"]]
    cells = [int(t.get_text()) for t in ax.texts]
    assert cells == [v for row in doc["confusion"] for v in row]
    scores = next(a for a in figures[0].axes[1:] if a.get_label() != "<colorbar>")
    assert scores.get_title() and scores.get_xlabel() and scores.get_ylabel()
    means = doc["rankings"]["means"]
    assert len(means) == doc["rankings"]["systems"] >= 2
    machine, hybrid, diagonal = scores.get_lines()
    assert list(machine.get_xdata()) == [v["reference"] for v in means.values()]
    assert list(machine.get_ydata()) == [v["machine"] for v in means.values()]
    assert list(hybrid.get_ydata()) == [v["hybrid"] for v in means.values()]
    assert machine.get_marker() != hybrid.get_marker()
    assert any(v["machine"] != v["reference"] for v in means.values())


def test_simulate_plots_each_methods_points(capsys, tmp_path, figures):
    docs = json.loads(_run(capsys, "simulate", "--qrels", EX / "bob.qrels", *RUNS, "--method",
                           "depth,mtf", "--budget", "20,50,100", "--format", "json", "--plot",
                           tmp_path / "sim.pdf"))
    _valid(tmp_path / "sim.pdf", "pdf")
    found, tau = figures[0].axes[:2]
    for ax in (found, tau):
        _distinct_styles(ax)
        assert [ln.get_label() for ln in ax.get_lines()] == [d["method"] for d in docs]
    for d, f, t in zip(docs, found.get_lines(), tau.get_lines()):
        assert list(f.get_xdata()) == [p["budget"] for p in d["points"]]
        assert list(f.get_ydata()) == [p["relevant_found"] for p in d["points"]]
        assert list(t.get_ydata()) == [p["kendall_tau_b"] for p in d["points"]]
