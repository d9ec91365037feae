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


def test_measures_name_prints_the_family_page(capsys):
    """`workbench measures NAME`, like `trec_eval -h -m NAME`: definition and
    formula, parameters with their defaults, the three tools' spellings, the source."""
    from workbench.metrics.kernels.rbp import RBP_P

    assert main(["measures", "nDCG@10"]) == 0  # any spelling -m takes names its family
    page = capsys.readouterr().out
    assert page.startswith("ndcg_cut: normalized DCG at cutoff k\n")
    assert "nDCG(@k) = DCG(@k) / IDCG(@k)" in page  # the kernel's formula
    assert "trec_eval parameter  ndcg_cut.k[,k…]; default 5, 10, 15, 20, 30, 100, 200, 500, 1000" in page
    assert "trec_eval spelling   ndcg_cut.k\n" in page
    assert "ir_measures spelling nDCG@k\n" in page and "ranx spelling        ndcg@k\n" in page
    assert 'Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of IR techniques"' in page
    assert "follows              m_ndcg_cut.c" in page
    for name in ("ndcg_cut", "ndcg_cut.5", "NDCG_CUT"):
        assert main(["measures", name]) == 0 and capsys.readouterr().out == page
    assert main(["measures", "precision@10"]) == 0  # ranx's spelling
    page = capsys.readouterr().out
    assert page.startswith("P: precision at cutoff k")
    assert "parameter rel        default the -l level (1)" in page and "parameter @k" in page
    assert "ranx spelling        precision@k" in page and "-m also takes        P, precision" in page
    assert main(["measures", "rbp"]) == 0
    page = capsys.readouterr().out
    assert f"default p={RBP_P:g}" in page and "parameter p          default 0.8" in page
    assert "ir_measures spelling RBP(p=0.9)" in page and "ranx spelling        — (none)" in page
    assert main(["measures", "gm_map"]) == 0
    page = capsys.readouterr().out
    assert "'all' value          geometric mean (the 'all' line only)" in page
    assert 'Robertson (2006), "On GMAP' in page


def test_measures_name_json_and_errors(capsys):
    assert main(["measures", "Judged@10", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["family"] == "Judged" and doc["trec_eval"] is None
    assert doc["spellings"] == {"trec_eval": None, "ir_measures": "Judged@k", "ranx": None}
    assert doc["citation"].startswith("MacAvaney, Macdonald & Ounis (2022)")
    assert doc["formula"].startswith("Judged@k = ")
    assert main(["measures", "ndcg_cutt"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("workbench: unknown measure 'ndcg_cutt' — did you mean ndcg_cut? "
                   "(`workbench measures` lists every measure)")
    assert main(["measures", "official"]) == 2  # a set, not one family
    assert "names measures of 12 families" in capsys.readouterr().err


def test_docs_measures_md_holds_the_registrys_table():
    """docs/measures.md's table of every family's spellings is the registry's, current."""
    from workbench.cli.measures_cmd import _rows, markdown

    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    start = text.index("<!-- generated: workbench measures --format markdown -->\n")
    end = text.index("\n<!-- end generated -->")
    shown = text[start:end].split("\n", 1)[1]
    assert shown == markdown(_rows()), "run `workbench measures --format markdown` into docs/measures.md"
    # so every family is on the page, with the spellings of its record
    for fam in FAMILIES:
        row = next(line for line in shown.splitlines() if line.startswith(f"| {fam.name} |"))
        for spelling in (fam.ir_measures, fam.ranx):
            assert not spelling or f"`{spelling}`" in row, (fam.name, spelling)
