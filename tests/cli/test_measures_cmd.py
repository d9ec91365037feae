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


def test_measures_lists_every_trec_eval_family(capsys):
    """trec_eval's remaining families, with their parameters and defaults."""
    assert main(["measures", "--format", "json"]) == 0
    by = {r["family"]: r for r in json.loads(capsys.readouterr().out)["measures"]}
    for name in ("G", "binG", "Rndcg", "ndcg_rel", "Rprec_mult", "gm_bpref",
                 "num_nonrel_judged_ret", "relative_P", "set_map", "set_relative_P", "unj",
                 "utility", "rbp", "rbp_resid", "relstring"):
        assert by[name]["trec_eval"] == name and "all_trec" in by[name]["sets"], name
    assert by["Rprec_mult"]["defaults"] == ["0.2", "0.4", "0.6", "0.8", "1", "1.2", "1.4",
                                            "1.6", "1.8", "2"]
    assert by["utility"]["trec_eval_parameter"] == ".p1,p2,p3,p4"
    assert by["utility"]["defaults"] == ["1", "-1", "0", "0"]
    assert by["unj"]["defaults"] == ["5", "10", "20"]
    assert by["relstring"]["aggregation"] == "text"
    assert by["gm_bpref"]["aggregation"] == "geometric mean" and by["gm_bpref"]["summary_only"]
    assert by["num_nonrel_judged_ret"]["aggregation"] == "sum"
    assert by["rbp"]["ir_measures"] == ["RBP"] and by["rbp"]["ir_measures_parameters"] == ["p"]
    assert by["ndcg"]["trec_eval_parameter"].startswith(".name=value")


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
