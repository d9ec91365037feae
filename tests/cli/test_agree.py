"""`workbench agree` through the real command: files and database, three formats, errors."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

from workbench.campaign.database import Database
from workbench.campaign.judging.grades import record_grade
from workbench.cli import cli, main
from workbench.store.models import Document, Query

A400 = [1] * 300 + [0] * 70 + [1] * 20 + [0] * 10
B400 = [1] * 300 + [0] * 70 + [0] * 20 + [1] * 10


def _qrels(path, grades, nq=4):
    path.write_text("".join(f"q{i % nq} 0 d{i} {g}\n" for i, g in enumerate(grades)))
    return str(path)


@pytest.fixture
def notes_files(tmp_path):
    return _qrels(tmp_path / "a.qrels", A400), _qrels(tmp_path / "b.qrels", B400)


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_json_on_files_has_the_design_keys_and_the_notes_values(notes_files):
    a, b = notes_files
    result = run("agree", "--qrels", a, b, "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert list(out) == [
        "assessors", "n_items", "pairs", "fleiss_kappa", "krippendorff_alpha_nominal",
        "krippendorff_alpha_ordinal", "krippendorff_alpha_interval", "fleiss_kappa_ci",
        "krippendorff_alpha_nominal_ci", "krippendorff_alpha_ordinal_ci",
        "krippendorff_alpha_interval_ci", "self", "pairs_without_common_items", "warnings",
    ]
    assert out["assessors"] == [a, b]
    assert out["n_items"] == 400
    (pair,) = out["pairs"]
    assert list(pair) == [
        "a", "b", "n", "observed", "cohen_kappa", "pooled_kappa",
        "weighted_kappa_linear", "weighted_kappa_quadratic", "cohen_kappa_ci",
    ]
    # the interval is statsmodels' (Fleiss, Cohen & Everitt 1969) on the 2 x 2 table
    from statsmodels.stats.inter_rater import cohens_kappa

    from workbench.formats.trec import read_qrels
    from workbench.metrics.agreement import confusion_matrix

    qa, qb = read_qrels(a), read_qrels(b)
    order_a, order_b = np.lexsort((qa.docno, qa.qid)), np.lexsort((qb.docno, qb.qid))
    table, _ = confusion_matrix(qa.rel[order_a], qb.rel[order_b])
    ref = cohens_kappa(table)
    assert pair["cohen_kappa_ci"] == pytest.approx([ref.kappa_low, ref.kappa_upp], abs=1e-12)
    lo, hi = out["fleiss_kappa_ci"]
    assert lo < out["fleiss_kappa"] < hi
    assert out["self"] == [] and out["warnings"] == []  # 400 items: no warning
    assert pair["n"] == 400 and pair["observed"] == pytest.approx(0.925)
    assert round(pair["pooled_kappa"], 4) == 0.7759
    assert round(pair["cohen_kappa"], 4) == 0.7761
    assert round(out["fleiss_kappa"], 4) == 0.7759  # Fleiss of two raters = Scott's pi


def test_table_shows_values_and_readings(notes_files):
    result = run("agree", "--qrels", *notes_files)
    assert result.exit_code == 0, result.output
    assert "0.7761" in result.stdout and "0.7759" in result.stdout
    assert "acceptable" in result.stdout
    assert "Fleiss' kappa" in result.stdout


def test_per_query_table_and_json(notes_files):
    result = run("agree", "--qrels", *notes_files, "-q")
    assert result.exit_code == 0
    assert "Per query" in result.stdout and "q3" in result.stdout
    out = json.loads(run("agree", "--qrels", *notes_files, "-q", "--format", "json").stdout)
    assert [r["query"] for r in out["per_query"]] == ["q0", "q1", "q2", "q3"]
    assert sum(r["n_items"] for r in out["per_query"]) == 400


def test_csv_one_row_per_coefficient(notes_files):
    result = run("agree", "--qrels", *notes_files, "--format", "csv")
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    by_name = {(r["a"] != "", r["coefficient"]): r for r in rows}
    assert by_name[(True, "cohen_kappa")]["value"] == "0.776119"
    assert by_name[(True, "expected_pooled")]["value"] == "0.665313"
    assert by_name[(True, "cohen_kappa")]["interpretation"] == "acceptable"
    assert by_name[(False, "fleiss_kappa")]["n"] == "400"


def test_binary_with_level(tmp_path):
    a = _qrels(tmp_path / "a", [0, 1, 2, 3, 3, 2])
    b = _qrels(tmp_path / "b", [0, 2, 2, 3, 2, 3])
    graded = json.loads(run("agree", "--qrels", a, b, "--format", "json").stdout)
    binary = json.loads(run("agree", "--qrels", a, b, "--binary", "-l", "2", "--format", "json").stdout)
    assert graded["pairs"][0]["observed"] == pytest.approx(3 / 6)
    # at >= 2: a = 0 0 1 1 1 1, b = 0 1 1 1 1 1
    assert binary["pairs"][0]["observed"] == pytest.approx(5 / 6)


def test_three_files_give_three_pairs(tmp_path):
    paths = [_qrels(tmp_path / n, g) for n, g in (("x", [0, 1, 1, 2]), ("y", [0, 1, 2, 2]), ("z", [1, 1, 1, 2]))]
    out = json.loads(run("agree", "--qrels", *paths, "--format", "json").stdout)
    assert [(p["a"], p["b"]) for p in out["pairs"]] == [
        (paths[0], paths[1]), (paths[0], paths[2]), (paths[1], paths[2])
    ]
    assert out["krippendorff_alpha_interval"] is not None


def test_single_category_prints_null_and_undefined(tmp_path):
    a = _qrels(tmp_path / "a", [1, 1, 1])
    b = _qrels(tmp_path / "b", [1, 1, 1])
    out = json.loads(run("agree", "--qrels", a, b, "--format", "json").stdout)
    assert out["pairs"][0]["cohen_kappa"] is None
    assert out["pairs"][0]["observed"] == 1.0
    assert "undefined" in run("agree", "--qrels", a, b).stdout


def test_bad_file_exit_1_with_file_and_line(tmp_path, capsys):
    a = _qrels(tmp_path / "a", [1, 0])
    bad = tmp_path / "bad"
    bad.write_text("q0 0 d0 1\nq0 0 d1\n")
    assert main(["agree", "--qrels", a, str(bad)]) == 1
    assert f"{bad}:2:" in capsys.readouterr().err


def test_usage_errors_exit_2(tmp_path, capsys):
    a = _qrels(tmp_path / "a", [1, 0])
    assert main(["agree", "--qrels", a]) == 2
    assert main(["agree", "--qrels"]) == 2
    assert main(["agree", "--qrels", a, a, "--format", "xml"]) == 2


# ---------------------------------------------------------------- database


@pytest.fixture
def campaign_url(db_url):
    database = Database.open(db_url)
    with database.write.begin() as s:
        s.add(Query(ext_id="q1"))
        s.add_all([Document(ext_id=f"d{i}") for i in range(1, 5)])
    for name, grades in (("ann", [3, 2, 0, 1]), ("ben", [3, 1, 0, 1]), ("cat", [2, 2, 0, None])):
        for i, g in enumerate(grades, 1):
            if g is not None:
                record_grade(database, name, "q1", f"d{i}", g)
    database.close()
    return db_url


def test_database_json_and_assessor_filter(campaign_url):
    result = run("--db", campaign_url, "agree", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["assessors"] == ["ann", "ben", "cat"]
    assert out["n_items"] == 4
    ann_ben = out["pairs"][0]
    assert ann_ben["n"] == 4 and ann_ben["observed"] == pytest.approx(3 / 4)
    sub = json.loads(run("agree", "--db", campaign_url, "-a", "ben", "-a", "cat", "--format", "json").stdout)
    assert sub["assessors"] == ["ben", "cat"]
    assert sub["pairs"][0]["n"] == 3


def test_database_unknown_assessor_exit_1(campaign_url, capsys):
    assert main(["--db", campaign_url, "agree", "-a", "ann", "-a", "zed"]) == 1
    assert "zed" in capsys.readouterr().err


def test_database_table_per_query(campaign_url):
    result = run("--db", campaign_url, "agree", "-q", "--binary")
    assert result.exit_code == 0, result.output
    assert "binary: grade >= 1" in result.stdout
    assert "q1" in result.stdout


def test_confusion_matrix_in_all_formats(notes_files):
    a, b = notes_files
    out = json.loads(run("agree", "--qrels", a, b, "--confusion", "--format", "json").stdout)
    assert out["confusion"] == [{"a": a, "b": b, "categories": [0, 1], "matrix": [[70, 10], [20, 300]]}]
    assert "confusion" not in json.loads(run("agree", "--qrels", a, b, "--format", "json").stdout)
    rows = list(csv.DictReader(io.StringIO(run("agree", "--qrels", a, b, "--confusion", "--format", "csv").stdout)))
    counts = {r["coefficient"]: r["value"] for r in rows if r["coefficient"].startswith("count_")}
    assert counts == {"count_0_0": "70", "count_0_1": "10", "count_1_0": "20", "count_1_1": "300"}
    table = run("agree", "--qrels", a, b, "--confusion").stdout
    assert "Confusion:" in table and "300" in table


def test_a_pipe_gets_whole_readings_with_the_band_in_the_pair_table():
    """In a pipe (no terminal width) the pair table's reading is not cut, and it carries
    the same reading as the all-assessors table (Landis & Koch band or "below 2/3")."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    result = CliRunner().invoke(cli, ["agree", "--qrels", str(examples / "bob.qrels"),
                                      str(examples / "last-year.qrels")])
    assert result.exit_code == 0, result.output
    pair = next(line for line in result.output.splitlines() if "bob.qrels" in line and " 123 " in line)
    assert pair.rstrip().endswith("0.4433   [0.325, 0.561]     0.4388      0.6561      0.8197   "
                                  "methodology problem (below 2/3)")
    assert "acceptable (almost perfect)" in result.output
