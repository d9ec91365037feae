"""`workbench measures` lists the registry; a mistyped measure is one usage line with a
suggestion (exit 2) in every command that takes -m."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.metrics.registry import FAMILIES

ROOT = Path(__file__).resolve().parents[2]


def test_measures_json_lists_every_family_in_print_order(capsys):
    assert main(["measures", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["measures"]
    assert [r["family"] for r in rows] == [f.name for f in FAMILIES]
    by = {r["family"]: r for r in rows}
    assert by["P"]["trec_eval"] == "P" and by["P"]["trec_eval_parameter"] == ".k[,k…]"
    assert by["P"]["defaults"] == ["5", "10", "15", "20", "30", "100", "200", "500", "1000"]
    assert by["ndcg_cut"]["ir_measures"] == ["nDCG@k"]
    assert by["set_recall"]["ir_measures"] == ["SetR", "R", "Recall"]
    assert by["gm_map"]["aggregation"] == "geometric mean"
    assert by["num_ret"]["aggregation"] == "sum" and by["num_ret"]["integer"] is True
    assert by["bpref"]["source"] == "m_bpref.c"
    assert by["Judged"]["trec_eval"] is None
    assert all(r["definition"] for r in rows)


def test_measures_table_shows_names_aliases_and_definitions(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "220")
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    assert "ndcg_cut.k[,k…]" in out and "nDCG@k" in out
    assert "reciprocal rank of the first relevant document" in out
    assert "geometric mean" in out


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> str:
    copy = tmp_path_factory.mktemp("measures") / "sample.sqlite"
    shutil.copyfile(ROOT / "sample_db" / "sample.sqlite", copy)
    return str(copy)


@pytest.mark.parametrize("command", ["eval", "score", "compare"])
def test_a_mistyped_measure_suggests_the_closest_name(command, sample, tmp_path, capsys):
    argv = [command, "-m", "ndcg_cutt.10"]
    if command == "eval":
        qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
        qrels.write_text("q1 0 d1 1\n")
        run.write_text("q1 Q0 d1 1 2.0 r\n")
        argv += [str(qrels), str(run)]
    else:
        argv += ["--db", sample]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.endswith("unknown measure 'ndcg_cutt.10' — did you mean ndcg_cut.10?")
