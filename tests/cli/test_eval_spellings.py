"""`eval --format table|csv|json` shows the measures as the user spelled them, in the
user's order (as `score` does); `--format trec` keeps trec_eval's names and order. The
names the workbench prints are accepted back."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from workbench.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval_quicktest"
FILES = [str(DATA / "qrels.test"), str(DATA / "results.test")]
ASKED = ["-m", "nDCG@10", "-m", "AP", "-m", "P@5,10", "-m", "recip_rank", "-m", "ERR@20"]


def _run(capsys, *args) -> str:
    assert main(["eval", *FILES, *args]) == 0
    return capsys.readouterr()[0]


def test_csv_and_json_keep_the_users_spelling_and_order(capsys):
    rows = list(csv.reader(io.StringIO(_run(capsys, *ASKED, "--format", "csv"))))
    assert [r[2] for r in rows[1:]] == ["nDCG@10", "AP", "P_5", "P_10", "recip_rank", "ERR@20"]
    doc = json.loads(_run(capsys, *ASKED, "--format", "json", "-q"))
    run = doc["runs"][0]
    assert list(run["summary"]) == ["nDCG@10", "AP", "P_5", "P_10", "recip_rank", "ERR@20"]
    assert all(list(v) == list(run["summary"]) for v in run["per_query"].values())
    # the values are those of trec_eval's names
    trec = {line.split("\t")[0].strip(): float(line.split("\t")[2])
            for line in _run(capsys, "-m", "ndcg_cut.10", "-m", "map", "-m", "P.5,10").splitlines()}
    assert round(run["summary"]["nDCG@10"], 4) == trec["ndcg_cut_10"]
    assert round(run["summary"]["AP"], 4) == trec["map"]
    assert round(run["summary"]["P_10"], 4) == trec["P_10"]


def test_table_keeps_the_users_spelling_and_order(capsys):
    out = _run(capsys, "-m", "P@5", "-m", "nDCG(dcg='exp-log2')@10", "--format", "table")
    header = next(line for line in out.splitlines() if "run" in line)
    assert header.index("P@5") < header.index("nDCG(dcg='exp-log2')@10")


def test_trec_format_keeps_trec_evals_names_and_order(capsys):
    out = _run(capsys, *ASKED)
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == \
        ["map", "recip_rank", "P_5", "P_10", "ndcg_cut_10", "ERR@20"]


def test_printed_names_are_accepted_back(capsys):
    printed = _run(capsys, "-m", "P.10", "-m", "ndcg_cut.10")
    assert _run(capsys, "-m", "P_10", "-m", "ndcg_cut_10") == printed
    assert _run(capsys, "-m", "P@5,10") == _run(capsys, "-m", "P.5,10")
