"""`workbench compare` through the real command on a stored campaign."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from sqlalchemy import insert, select

from workbench.campaign.database import Database
from workbench.campaign.judging.grades import record_grade
from workbench.cli import cli, main
from tests.stored_runs import write_results
from workbench.store.models import Document, Query, System


@pytest.fixture
def campaign_url(db_url):
    """4 queries x 4 docs; systems up (d1 d2 d3 d4) and down (reversed); d1 relevant for
    ann everywhere, d4 relevant for ben everywhere: the two rankings swap."""
    db = Database.open(db_url)
    with db.write.begin() as s:
        s.execute(insert(Query), [{"ext_id": f"q{i}"} for i in range(1, 5)])
        s.execute(insert(Document), [{"ext_id": f"d{i}"} for i in range(1, 5)])
        s.execute(insert(System), [{"tag": "up"}, {"tag": "down"}])
    with db.write.begin() as s:
        q = dict(s.execute(select(Query.ext_id, Query.id)).all())
        d = dict(s.execute(select(Document.ext_id, Document.id)).all())
        sy = dict(s.execute(select(System.tag, System.id)).all())
        orders = {"up": [1, 2, 3, 4], "down": [4, 3, 2, 1]}
        write_results(s, [
            {"system_id": sy[t], "query_id": q[qe], "document_id": d[f"d{doc}"], "score": 10.0 - r}
            for t, order in orders.items() for qe in q for r, doc in enumerate(order, 1)
        ])
    for qe in ("q1", "q2", "q3", "q4"):
        for doc in range(1, 5):
            record_grade(db, "ann", qe, f"d{doc}", 2 if doc == 1 else 0)
            record_grade(db, "ben", qe, f"d{doc}", 2 if doc == 4 else 0)
    db.close()
    return db_url


def run(url, *args):
    return CliRunner().invoke(cli, ["--db", url, "compare", *args])


def test_json_by_assessor(campaign_url):
    result = run(campaign_url, "-m", "P@1", "--by-assessor", "--format", "json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert list(out)[:4] == ["measure", "rankings", "correlations", "tests"]
    assert out["measure"] == "P@1"
    assert out["rankings"]["assessor:ann"] == ["up", "down"]
    assert out["rankings"]["assessor:ben"] == ["down", "up"]
    ann_ben = next(c for c in out["correlations"] if c["a"] == "assessor:ann" and c["b"] == "assessor:ben")
    assert ann_ben["kendall_tau_b"] == -1.0 and ann_ben["tau_ap"] == -1.0
    assert list(ann_ben) == ["a", "b", "kendall_tau_b", "kendall_tau_a", "tau_ap", "rbo"]
    (test,) = out["tests"]
    assert list(test) == ["a", "b", "mean_diff", "mean_diff_ci", "effect_size", "effect_size_ci",
                          "p_value", "p_holm", "n_queries", "sentence"]
    # consensus majority: ann and ben tie on d1 and d4 -> lower grade 0: nothing relevant
    assert test["mean_diff"] == 0.0 and test["p_value"] == 1.0


def test_table_and_csv(campaign_url):
    result = run(campaign_url, "-m", "P@1", "--by-assessor")
    assert result.exit_code == 0, result.output
    assert "Systems ranked by P@1" in result.stdout
    assert "Rank correlation" in result.stdout and "Holm" in result.stdout
    rows = list(csv.DictReader(io.StringIO(run(campaign_url, "-m", "P@1", "-a", "ann",
                                                "--format", "csv").stdout)))
    ranks = [(r["source"], r["a"], r["value"]) for r in rows if r["statistic"] == "rank"]
    assert ("assessor:ann", "up", "1") in ranks
    assert {r["kind"] for r in rows} == {"ranking", "correlation", "test"}


def test_randomization_seeded_and_consensus_choice(campaign_url):
    args = ["-m", "P@1", "--consensus", "mean", "--test", "randomization", "-n", "999", "--seed", "3",
            "--format", "json"]
    first, second = (json.loads(run(campaign_url, *args).stdout) for _ in range(2))
    assert first == second
    # mean of 2 and 0 rounds half up to 1: d1 and d4 relevant -> both P@1 = 1
    assert first["rankings"]["consensus:mean"] == ["down", "up"]
    assert first["tests"][0]["p_value"] == 1.0


def test_errors(campaign_url, capsys):
    assert main(["--db", campaign_url, "compare", "-m", "nonsense@x"]) == 2
    assert main(["--db", campaign_url, "compare", "-a", "zed"]) == 1
    assert "zed" in capsys.readouterr().err
    assert main(["--db", campaign_url, "compare", "--test", "wilcoxon"]) == 2


# ---------------------------------------------------------------- files


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    qa = write("A.qrels", "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 0\nq2 0 d2 1\n")
    qb = write("B.qrels", "q1 0 d1 0\nq1 0 d2 2\nq2 0 d1 1\nq2 0 d2 0\n")
    up = write("up.run", "q1 Q0 d1 1 3 up\nq1 Q0 d2 2 2 up\nq1 Q0 d3 3 1 up\n"
                         "q2 Q0 d1 1 2 up\nq2 Q0 d2 2 1 up\n")
    down = write("down.run", "q1 Q0 d3 1 3 down\nq1 Q0 d2 2 2 down\nq1 Q0 d1 3 1 down\n"
                             "q2 Q0 d2 1 2 down\nq2 Q0 d1 2 1 down\n")
    return qa, qb, up, down


def test_compare_on_files(files):
    qa, qb, up, down = files
    result = CliRunner().invoke(
        cli, ["compare", "--qrels", qa, qb, "--run", up, down, "-m", "P@1", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # under A: up P@1 = (1 + 0) / 2, down = (1 + 1) / 2; under B: up = (0 + 1) / 2, down = 0
    assert out["rankings"] == {qa: ["down", "up"], qb: ["up", "down"]}
    assert out["means"][qa] == {"up": 0.5, "down": 1.0}
    (c,) = out["correlations"]
    assert c["kendall_tau_b"] == -1.0 and c["tau_ap"] == -1.0
    (t,) = out["tests"]
    # d = down - up under A = [0, 1]: t = 0.5 / (sqrt(0.5) / sqrt(2)) = 1, df 1 -> p = 0.5
    assert (t["a"], t["b"]) == ("down", "up")
    assert t["mean_diff"] == pytest.approx(0.5)
    assert t["p_value"] == pytest.approx(0.5)


def test_compare_on_files_level_and_errors(files, tmp_path, capsys):
    qa, qb, up, down = files
    out = json.loads(CliRunner().invoke(
        cli, ["compare", "-l", "2", "-m", "P@1", "--format", "json", "--qrels", qa, "--run", up, down]
    ).stdout)
    # only grade 2 counts: up finds d1 in q1; down finds nothing
    assert out["means"][qa] == {"up": 0.5, "down": 0.0}
    assert main(["compare", "--qrels", qa]) == 2
    assert main(["compare", "--qrels", qa, "--run", up, "--nope"]) == 2
    assert main(["compare", "--qrels", qa, "--run", up, "-m", "P"]) == 2  # P expands to many
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 notanumber x\n")
    assert main(["compare", "--qrels", qa, "--run", up, str(bad)]) == 1
    assert f"{bad}:1:" in capsys.readouterr().err


def test_files_second_measure_and_bootstrap_csv(files):
    qa, qb, up, down = files
    result = CliRunner().invoke(cli, ["compare", "--qrels", qa, "--run", up, down, "-m", "P@1",
                                      "-m", "P@3", "--test", "bootstrap", "-n", "500", "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    sources = {r["source"] for r in rows if r["kind"] == "ranking"}
    assert sources == {qa, f"{qa} P@3"}
    stats = {r["statistic"] for r in rows if r["kind"] == "test"}
    assert stats == {"mean_diff", "p_value", "p_holm", "ci_low", "ci_high", "effect_size",
                     "effect_size_low", "effect_size_high"}
    # P@3 under A: up q1 (d1 2, d2 0, d3 1) -> 2/3, q2 (d1 0, d2 1) -> 1/3; down the same sets
    means = {r["a"]: float(r["value"]) for r in rows
             if r["source"] == f"{qa} P@3" and r["statistic"] == "mean"}
    assert means == pytest.approx({"up": 0.5, "down": 0.5})


def test_lists_on_files_and_database(files, campaign_url):
    _, _, up, down = files
    out = json.loads(CliRunner().invoke(cli, ["compare", "--run", up, down, "--lists", "up", "down",
                                              "--format", "json"]).stdout)
    # q1: up d1 d2 d3, down d3 d2 d1 -> reversed: tau-b -1
    assert [q["kendall_tau_b"] for q in out["queries"]] == [-1.0, -1.0]
    assert out["queries"][0]["shared"] == 3
    result = run(campaign_url, "--lists", "up", "down", "--depth", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["shared"] for r in rows] == ["0"] * 4  # top 2 of d1..d4 vs d4..d1
    assert rows[0]["rbo"] == "0.000000"
    table = run(campaign_url, "--lists", "up", "down")
    assert "mean" in table.stdout and "RBO" in table.stdout
    assert main(["--db", campaign_url, "compare", "--lists", "up", "nope"]) == 1


def test_significance_matrix_with_three_systems(files, tmp_path):
    qa, _, up, down = files
    mid = tmp_path / "mid.run"
    mid.write_text("q1 Q0 d3 1 3 mid\nq1 Q0 d1 2 2 mid\nq2 Q0 d1 1 2 mid\nq2 Q0 d2 2 1 mid\n")
    result = CliRunner().invoke(cli, ["compare", "--qrels", qa, "--run", up, down, str(mid),
                                      "-m", "P@1"])
    assert result.exit_code == 0, result.output
    assert "Significance matrix" in result.stdout
    assert "Holm-corrected over 3 pairs" in result.stdout


def test_sources_are_compared_on_the_queries_all_judged(tmp_path):
    """The sample's carol judged 7 of 10 queries: by default every source is ranked on
    those 7 (means re-averaged from the per-query scores), coverage says why; with
    --all-queries each source keeps its own queries."""
    import json
    import shutil
    from pathlib import Path

    from click.testing import CliRunner

    from workbench.cli import cli

    copy = tmp_path / "s.sqlite"
    shutil.copyfile(Path(__file__).resolve().parents[2] / "sample_db" / "sample.sqlite", copy)

    def run(*args):
        result = CliRunner().invoke(cli, ["--db", str(copy), *args, "--format", "json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    report = run("compare", "-m", "map", "--by-assessor")
    cov = report["coverage"]
    assert cov["assessor:carol"]["queries"] == 7 and cov["assessor:alice"]["queries"] == 10
    assert report["queries"] == {"common": 7}
    judged10 = run("score", "-m", "Judged@10", "--assessor", "carol")
    systems = judged10["systems"]
    assert cov["assessor:carol"]["judged_at_10"] == pytest.approx(
        sum(s["mean"]["Judged@10"] for s in systems) / len(systems))
    carol = {s["system"]: s["per_query"] for s in run("score", "-m", "map", "-q", "--assessor", "carol")["systems"]}
    common = set(next(iter(carol.values())))
    assert len(common) == 7
    alice = {s["system"]: s["per_query"] for s in run("score", "-m", "map", "-q", "--assessor", "alice")["systems"]}
    for system, per_query in alice.items():
        expected = sum(per_query[q]["map"] for q in common) / len(common)
        assert report["means"]["assessor:alice"][system] == pytest.approx(expected, abs=1e-12)
    own = run("compare", "-m", "map", "--by-assessor", "--all-queries")
    assert own["queries"] == "all"
    full = {s["system"]: s["mean"]["map"] for s in run("score", "-m", "map", "--assessor", "alice")["systems"]}
    assert own["means"]["assessor:alice"] == pytest.approx(full)


def test_by_assessor_names_an_assessor_who_judged_nothing_and_compares_the_others(campaign_url):
    """One assessor without a grade emptied every ranking ("no stored runs,
    or no judgments yet")."""
    from workbench.campaign.assessors.roster import create_assessor as ensure_assessor

    db = Database.open(campaign_url)
    ensure_assessor(db, "cat")
    db.close()
    out = json.loads(run(campaign_url, "-m", "P@1", "--by-assessor", "--format", "json").stdout)
    assert out["left_out"] == ["assessor:cat"]
    assert out["coverage"]["assessor:cat"]["queries"] == 0
    assert out["rankings"]["assessor:ann"] == ["up", "down"]
    assert out["rankings"]["assessor:ben"] == ["down", "up"]
    assert "assessor:cat" not in out["rankings"]
    assert out["queries"] == {"common": 4}
    table = run(campaign_url, "-m", "P@1", "--by-assessor")
    assert table.exit_code == 0, table.output
    assert "Left out (no judged query): assessor:cat." in table.stdout
    assert "No system could be scored" not in table.stdout
