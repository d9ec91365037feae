"""`workbench score`: formats, sources, errors; trec output checked against pytrec_eval."""

from __future__ import annotations

import json

import pytest
import pytrec_eval

from tests.tui.factory import build_campaign, stored_runs
from workbench.campaign.scoring.sources import QrelsSource
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.cli import main


@pytest.fixture
def scored(sqlite_db):
    camp = build_campaign(sqlite_db, n_queries=3, n_systems=2, depth=8)
    for i, d in enumerate(camp.queues["q1"]["alice"]):
        record_grade(sqlite_db, "alice", "q1", d, i % 4)
    for i, d in enumerate(camp.queues["q2"]["alice"][:5]):
        record_grade(sqlite_db, "alice", "q2", d, (i + 1) % 3)
    return sqlite_db, camp


def _trec(out: str) -> dict[str, dict[tuple[str, str], str]]:
    blocks: dict[str, dict[tuple[str, str], str]] = {}
    current = None
    for line in out.strip().splitlines():
        m, q, v = line.split("\t")
        m = m.strip()
        if m == "runid":
            current = blocks.setdefault(v, {})
        else:
            current[(m, q)] = v
    return blocks


def test_trec_format_matches_pytrec_eval(scored, capsys):
    db, camp = scored
    assert main(["score", "--db", db.url, "--assessor", "alice", "-q", "--format", "trec",
                 "-m", "map", "-m", "P.5", "-m", "num_rel_ret", "-m", "num_q"]) == 0
    blocks = _trec(capsys.readouterr().out)
    assert list(blocks) == camp.systems
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in derive_qrels(db, source=QrelsSource.assessor("alice")).rows():
        qrels.setdefault(q, {})[d] = g
    for tag, run in stored_runs(db).items():
        oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "num_rel_ret"}).evaluate(run)
        got = blocks[tag]
        assert got[("num_q", "all")] == "2"
        for q in ("q1", "q2"):
            assert got[("map", q)] == f"{oracle[q]['map']:.4f}"
            assert got[("P_5", q)] == f"{oracle[q]['P_5']:.4f}"
            assert got[("num_rel_ret", q)] == str(int(oracle[q]["num_rel_ret"]))
        assert got[("map", "all")] == f"{(oracle['q1']['map'] + oracle['q2']['map']) / 2:.4f}"
        assert got[("num_rel_ret", "all")] == str(
            int(oracle["q1"]["num_rel_ret"] + oracle["q2"]["num_rel_ret"]))


def test_json_csv_and_table(scored, capsys):
    db, camp = scored
    assert main(["score", "--db", db.url, "--format", "json", "-q", "-m", "nDCG@10"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "consensus:majority" and data["measures"] == ["nDCG@10"]
    # best first by the first measure, as the scoreboard lists them
    means = [s["mean"]["nDCG@10"] for s in data["systems"]]
    assert means == sorted(means, reverse=True)
    assert sorted(s["system"] for s in data["systems"]) == camp.systems
    assert set(data["systems"][0]["per_query"]) == {"q1", "q2"}
    assert main(["score", "--db", db.url, "--format", "csv", "-m", "P@10"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "system,query,measure,value"
    assert sorted(ln.split(",")[:3] for ln in lines[1:]) == [[t, "all", "P@10"] for t in camp.systems]
    assert main(["score", "--db", db.url]) == 0
    assert camp.systems[0] in capsys.readouterr().out


def test_errors(scored, capsys):
    db, _ = scored
    assert main(["score", "--db", db.url, "-m", "nope"]) == 2
    assert "unknown measure" in capsys.readouterr().err
    assert main(["score", "--db", db.url, "--assessor", "ghost"]) == 1
    assert "unknown assessor 'ghost'" in capsys.readouterr().err
    assert main(["score", "--db", db.url, "--assessor", "alice", "--consensus", "mean"]) == 2


def test_trec_output_is_what_eval_prints_for_the_same_data(scored, capsys, tmp_path):
    """Same numbers and layout as `workbench eval` on the derived qrels and stored runs."""
    db, camp = scored
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in derive_qrels(db, source=QrelsSource.assessor("alice")).rows()))
    runs = stored_runs(db)
    measures = ["-m", "map", "-m", "ndcg_cut.10", "-m", "bpref", "-m", "P.10", "-m", "num_ret"]
    assert main(["score", "--db", db.url, "--assessor", "alice", "-q", "--format", "trec", *measures]) == 0
    blocks = capsys.readouterr().out.strip().split("runid                 \tall\t")[1:]
    assert [b.splitlines()[0] for b in blocks] == camp.systems
    for block, tag in zip(blocks, camp.systems):
        run = tmp_path / f"{tag}.run"
        run.write_text("".join(
            f"{q} Q0 {d} 0 {score!r} {tag}\n" for q, docs in runs[tag].items() for d, score in docs.items()
        ))
        assert main(["eval", str(qrels), str(run), "-q", "--format", "trec", *measures]) == 0
        assert block.splitlines()[1:] == capsys.readouterr().out.strip().splitlines()


def test_all_trec_scores_every_numeric_family(scored, capsys):
    """`score -m all_trec` gives trec_eval's families as eval does (same values),
    without relstring, which is text per query and not a score."""
    db, camp = scored
    assert main(["score", "--db", db.url, "--assessor", "alice", "-q", "--format", "trec",
                 "-m", "all_trec"]) == 0
    blocks = _trec(capsys.readouterr().out)
    assert sorted(blocks) == camp.systems
    names = {m for m, _ in blocks[camp.systems[0]]}
    assert {"G", "binG", "Rndcg", "ndcg_rel", "gm_bpref", "rbp", "rbp_resid", "unj_5",
            "utility", "Rprec_mult_1.00", "relative_P_5", "set_map", "set_relative_P",
            "num_nonrel_judged_ret"} <= names
    assert not any(m.startswith("relstring") for m in names)
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in derive_qrels(db, source=QrelsSource.assessor("alice")).rows():
        qrels.setdefault(q, {})[d] = g
    measures = {"G", "binG", "Rndcg", "ndcg_rel", "Rprec_mult", "utility", "set_map",
                "num_nonrel_judged_ret"}
    for tag, run in stored_runs(db).items():
        oracle = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        for q in ("q1", "q2"):
            for name in ("G", "binG", "Rndcg", "ndcg_rel", "Rprec_mult_1.00", "utility", "set_map"):
                assert blocks[tag][(name, q)] == f"{oracle[q][name]:.4f}", (tag, q, name)
            assert blocks[tag][("num_nonrel_judged_ret", q)] == str(int(oracle[q]["num_nonrel_judged_ret"]))


def test_a_family_named_with_parameters_replaces_its_defaults_as_in_eval(scored, capsys, tmp_path):
    """One rule for every command: `score -m all_trec -m P.3` scores P_3 of P, as `eval` (and
    trec_eval) does; `-m P.5 -m P` keeps P_5."""
    db, camp = scored
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in
                             derive_qrels(db, source=QrelsSource.assessor("alice")).rows()))
    tag = camp.systems[0]
    run = tmp_path / "run"
    run.write_text("".join(f"{q} Q0 {d} 0 {score!r} {tag}\n"
                           for q, docs in stored_runs(db)[tag].items() for d, score in docs.items()))
    for measures in (["-m", "all_trec", "-m", "P.3"], ["-m", "P.5", "-m", "P"]):
        assert main(["score", "--db", db.url, "--assessor", "alice", "-q", "--format", "trec",
                     *measures]) == 0
        scored_p = sorted({m for m, _ in _trec(capsys.readouterr().out)[tag] if m.startswith("P_")})
        assert main(["eval", str(qrels), str(run), "-q", "--format", "trec", *measures]) == 0
        printed = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
        assert scored_p == sorted(m for m in printed if m.startswith("P_"))
        assert scored_p == (["P_3"] if "P.3" in measures else ["P_5"])


def test_text_only_measure_is_refused(scored, capsys):
    db, _ = scored
    assert main(["score", "--db", db.url, "--assessor", "alice", "-m", "relstring.5"]) == 2
    err = capsys.readouterr().err
    assert "relstring.5: text per query, not a score" in err and "workbench eval" in err


def test_score_csv_and_export_scores_are_one_writer(sqlite_db, capsys):
    """`score --format csv -q` and `export scores -q` write the same rows: the same
    precision (0.9263 against 0.926334 before), the same order (queries by name: q1, q10,
    q11, q2... although the database holds them q1, q2, ..., q11) and no float noise."""
    import re

    camp = build_campaign(sqlite_db, n_queries=11, n_systems=2, depth=5)
    for q in camp.queries:
        for i, d in enumerate(camp.queues[q]["alice"]):
            record_grade(sqlite_db, "alice", q, d, (i * 7 + len(q)) % 4)
    measures = ["-m", "nDCG@10", "-m", "P@3", "-m", "num_rel"]
    assert main(["score", "--db", sqlite_db.url, "--format", "csv", "-q", *measures]) == 0
    scored = capsys.readouterr().out
    assert main(["export", "scores", "--db", sqlite_db.url, "-q", *measures]) == 0
    exported = capsys.readouterr().out
    assert scored == exported
    rows = [line.split(",") for line in scored.splitlines()[1:]]
    assert [q for s, q, m, _ in rows if s == camp.systems[0] and m == "P@3"] == [
        "q1", "q10", "q11", *(f"q{i}" for i in range(2, 10)), "all"]
    for _, _, m, v in rows:
        assert re.fullmatch(r"\d+" if m == "num_rel" else r"\d\.\d{6}", v), (m, v)
    # the mean P@3 of 11 queries is a sum of thirds over 11: float noise before (repr)
    assert main(["export", "scores", "--db", sqlite_db.url, *measures]) == 0
    for line in capsys.readouterr().out.splitlines()[1:]:
        source, system, n, ndcg, p3, num_rel, judged, unjudged = line.split(",")
        assert re.fullmatch(r"\d\.\d{6}", p3) and re.fullmatch(r"\d\.\d{6}", judged), line
        assert p3 == next(v for s, q, m, v in rows if (s, q, m) == (system, "all", "P@3"))
