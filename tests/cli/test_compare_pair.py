"""`compare --pair A B --per-query`: two systems query by query, on files and on the
stored sample; the differences are `workbench.evaluate`'s, the test scipy's."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.campaign.comparison.pair import pair_report
from workbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUNS = [str(EX / "runs" / f"{n}.run") for n in ("bm25", "qld", "tfidf")]


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_pair_on_files_gives_evaluates_differences_and_scipys_test(capsys):
    stats = pytest.importorskip("scipy.stats")
    out = _cli(capsys, "compare", "--qrels", EX / "bob.qrels", "--run", *RUNS, "-m", "map",
               "--pair", "bm25", "qld", "--per-query", "--format", "json")
    doc = json.loads(out)
    a = workbench.evaluate(EX / "bob.qrels", RUNS[0], "map", per_query=True)
    b = workbench.evaluate(EX / "bob.qrels", RUNS[1], "map", per_query=True)
    diffs = {q: a[q]["map"] - b[q]["map"] for q in a}
    assert [r["query"] for r in doc["per_query"]] == sorted(diffs, key=lambda q: -diffs[q])
    assert all(r["diff"] == diffs[r["query"]] and r["a"] == a[r["query"]]["map"]
               for r in doc["per_query"])
    assert (doc["wins"], doc["ties"], doc["losses"]) == (
        sum(d > 0 for d in diffs.values()), 0, sum(d < 0 for d in diffs.values()))
    assert doc["wins"] + doc["losses"] == 5 and doc["losses"] >= 1
    assert doc["mean_diff"] == pytest.approx(np.mean(list(diffs.values())), abs=1e-15)
    assert doc["mean_a"] == pytest.approx(a.all["map"], abs=1e-15)
    ref = stats.ttest_rel([a[q]["map"] for q in a], [b[q]["map"] for q in a])
    assert doc["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert doc["ci"]["low"] < doc["mean_diff"] < doc["ci"]["high"]
    assert doc["most_different"][0] == max(diffs, key=lambda q: abs(diffs[q]))
    out = _cli(capsys, "compare", "--qrels", EX / "bob.qrels", "--run", *RUNS, "-m", "map",
               "--pair", "bm25", "qld", "--per-query", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query", "bm25", "qld", "diff"]
    # a score CSV like every other (formats/score_tables.py): 6 decimals, no float noise
    assert [(q, d) for q, _, _, d in rows[1:]] == [(r["query"], f"{r['diff']:.6f}")
                                                   for r in doc["per_query"]]
    assert all(re.fullmatch(r"-?\d\.\d{6}", c) for row in rows[1:] for c in row[1:])
    out = _cli(capsys, "compare", "--qrels", EX / "bob.qrels", "--run", *RUNS, "-m", "map",
               "--pair", "bm25", "qld", "--per-query")
    assert f"bm25 wins {doc['wins']}, ties 0, loses {doc['losses']}" in out
    assert "queries where they differ most" in out


def test_pair_on_the_stored_sample(capsys, tmp_path):
    db = tmp_path / "s.sqlite"
    shutil.copyfile(ROOT / "sample_db" / "sample.sqlite", db)
    doc = json.loads(_cli(capsys, "compare", "--db", db, "--pair", "bm25", "qld", "--per-query",
                          "--format", "json"))
    score = json.loads(_cli(capsys, "score", "--db", db, "-m", "nDCG@10", "--format", "json"))
    means = {s["system"]: s["mean"]["nDCG@10"] for s in score["systems"]}
    assert doc["measure"] == "nDCG@10" and doc["queries"] == 10
    assert doc["mean_a"] == pytest.approx(means["bm25"], abs=1e-12)
    assert doc["mean_b"] == pytest.approx(means["qld"], abs=1e-12)
    assert doc["wins"] + doc["ties"] + doc["losses"] == 10
    code = main(["compare", "--db", str(db), "--pair", "bm25", "nope", "--per-query"])
    assert code != 0 and "nope" in capsys.readouterr().err


def test_wins_ties_losses_worked_example():
    r = pair_report("A", "B", "map", {"q1": 0.5, "q2": 0.2, "q3": 0.3, "q4": 0.1},
                    {"q1": 0.25, "q2": 0.2, "q3": 0.4, "q5": 0.9}, n_resamples=200)
    assert (r.wins, r.ties, r.losses, r.only_a, r.only_b) == (1, 1, 1, 1, 1)
    assert r.queries == ("q1", "q2", "q3")  # A − B: +0.25, 0, −0.1
    assert r.mean_diff == pytest.approx(0.05)
    assert [r.queries[i] for i in r.most_different()] == ["q1", "q3"]
