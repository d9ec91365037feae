"""Score tables (CSV/JSON/Markdown/LaTeX) and `workbench export scores --format ...`."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.formats.score_tables import ScoresGrid, render_scores, tex_escape

SAMPLE = Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite"

GRID = ScoresGrid(
    "consensus:majority",
    ("map", "P_5", "num_rel"),
    (
        ("bm25", 10, (0.81283, 0.94, 145.0)),
        ("run|x_1", 9, (0.5, 0.94000000001, 145.0)),
        ("zero", 0, (math.nan, math.nan, 0.0)),
    ),
    frozenset({"num_rel"}),
)


def test_markdown_bolds_the_best_per_column_and_escapes_pipes():
    text = render_scores(GRID, "markdown")
    assert text.splitlines() == [
        "Scores against consensus:majority",
        "",
        "| system | queries | map | P_5 | num_rel |",
        "|:---|---:|---:|---:|---:|",
        "| bm25 | 10 | **0.8128** | **0.9400** | 145 |",
        "| run\\|x_1 | 9 | 0.5000 | **0.9400** | 145 |",  # tie at 4 decimals: both bold
        "| zero | 0 | – | – | 0 |",
    ]


def test_latex_escapes_and_bolds():
    text = render_scores(GRID, "latex")
    assert "System & Queries & map & P\\_5 & num\\_rel \\\\" in text
    assert "bm25 & 10 & \\textbf{0.8128} & \\textbf{0.9400} & 145 \\\\" in text
    assert "run|x\\_1 & 9 & 0.5000 & \\textbf{0.9400} & 145 \\\\" in text
    assert "zero & 0 & -- & -- & 0 \\\\" in text
    assert text.count("\\begin{tabular}{lrrrr}") == 1 and text.rstrip().endswith("\\end{table}")
    assert tex_escape("a_b&c%d$e#f{g}h~i^j\\") == (
        "a\\_b\\&c\\%d\\$e\\#f\\{g\\}h\\textasciitilde{}i\\textasciicircum{}j\\textbackslash{}")


def test_csv_has_six_decimals_and_json_full_precision():
    lines = render_scores(GRID, "csv").splitlines()
    assert lines[0] == "source,system,queries,map,P_5,num_rel"
    assert lines[1] == f"{GRID.source},bm25,10,0.812830,0.940000,145"
    assert lines[2] == f"{GRID.source},run|x_1,9,0.500000,0.940000,145"  # no 0.94000000001
    assert lines[3] == f"{GRID.source},zero,0,,,0"
    data = json.loads(render_scores(GRID, "json"))
    assert data["systems"][1] == {"system": "run|x_1", "n_queries": 9,
                                  "mean": {"map": 0.5, "P_5": 0.94000000001, "num_rel": 145}}
    assert data["systems"][2]["mean"]["map"] is None
    with pytest.raises(ValueError):
        render_scores(GRID, "html")


@pytest.fixture
def sample(tmp_path):
    copy = tmp_path / "sample.sqlite"
    shutil.copyfile(SAMPLE, copy)
    return str(copy)


def _run(*args):
    from workbench.cli import cli

    return CliRunner().invoke(cli, list(args))


def test_export_scores_json_equals_score_json(sample):
    exported = _run("export", "scores", "--db", sample, "--format", "json",
                    "-m", "nDCG@10", "-m", "AP", "--consensus", "mean")
    scored = _run("score", "--db", sample, "--format", "json", "-m", "nDCG@10", "-m", "AP",
                  "--consensus", "mean")
    assert exported.exit_code == 0 and scored.exit_code == 0
    a, b = json.loads(exported.output), json.loads(scored.output)
    assert a["source"] == b["source"] == "consensus:mean"
    # the scoreboard's columns: the measures, then Judged@10 and unjudged@10
    assert a["measures"] == ["nDCG@10", "AP", "Judged@10", "unjudged@10"]  # as asked
    assert {s["system"]: {k: v for k, v in s["mean"].items() if k in ("nDCG@10", "AP")}
            for s in a["systems"]} == {s["system"]: s["mean"] for s in b["systems"]}
    judged = _run("score", "--db", sample, "--format", "json", "-q", "-m", "Judged@10", "--consensus", "mean")
    for s in json.loads(judged.output)["systems"]:
        holes = round(sum(10 * (1 - v["Judged@10"]) for v in s["per_query"].values()))
        assert next(x for x in a["systems"] if x["system"] == s["system"])["mean"]["unjudged@10"] == holes


def test_export_scores_markdown_to_file_and_usage_errors(sample, tmp_path):
    out = tmp_path / "scores.md"
    result = _run("export", "scores", "--db", sample, "--format", "markdown", "-m", "P@5",
                  "-o", str(out))
    assert result.exit_code == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "Scores against consensus:majority"
    assert lines[2] == "| system | queries | P@5 | Judged@5 | unjudged@5 |"
    assert lines[4].startswith("| bm25 | 10 | **0.9600** |")  # the CLI's score table says 0.9600
    bad = _run("export", "scores", "--db", sample, "--format", "latex", "-q")
    assert bad.exit_code == 2
