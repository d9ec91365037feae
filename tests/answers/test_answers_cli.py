"""Answers, nuggets and nugget assignments through the CLI: imports are
all-or-nothing with file:line errors, exports give the imported records back, and the
nugget scores equal an independent implementation of nuggetizer's published formulas."""

from __future__ import annotations

import json
import random

import pytest

from tests.cli.helpers import cli_ok, run


def _err(result) -> str:
    """What the user sees of a failed command (its message, raised in-process)."""
    return result.output + str(result.exception or "")


def _write(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _answers24():
    return [
        {"run_id": "rA", "topic_id": "t1", "topic": "what is x", "references": ["d1", "d2", "d3"],
         "response_length": 7, "answer": [{"text": "X is a thing.", "citations": [0, 2]},
                                          {"text": "It is big.", "citations": []}]},
        {"run_id": "rB", "topic_id": "t1", "topic": "what is x", "references": ["d2"],
         "response_length": 3, "answer": [{"text": "X is small.", "citations": [0]}]},
    ]


def _answers25():
    return [{"metadata": {"team_id": "tm", "run_id": "rC", "narrative_id": "t2", "type": "automatic"},
             "references": ["seg-1", "seg-2"],
             "answer": [{"text": "Y holds.", "citations": ["seg-2", "seg-1"]}]}]


def test_answers_import_and_export_round_trip(db_url, tmp_path):
    a24 = _write(tmp_path / "a24.jsonl", _answers24())
    a25 = _write(tmp_path / "a25.jsonl", _answers25())
    out = cli_ok(db_url, "import", "answers", a24, a25)
    assert "imported 2 answers from a24.jsonl" in out and "imported 1 answers from a25.jsonl" in out
    exported = [json.loads(x) for x in cli_ok(db_url, "export", "answers").splitlines()]
    assert exported == _answers24() + _answers25()
    listed = cli_ok(db_url, "list", "runs")
    assert "rA" in listed and "rC" in listed
    scored = run(db_url, "score")
    assert "'rA' has answers only and no ranked results" in scored.stderr


@pytest.mark.parametrize("record, reason", [
    ({"run_id": "r", "topic_id": "t", "references": ["d"], "answer": [{"text": "a", "citations": [1]}]},
     "citation 1 is outside references (0..0)"),
    ({"run_id": "r", "topic_id": "t", "references": [], "answer": [{"text": " ", "citations": []}]},
     "answer sentence 0 has no text"),
    ({"qid": "t", "nuggets": []}, "not a TREC RAG answer record"),
    ({"metadata": {"run_id": "r", "narrative_id": "t"}, "references": ["s"],
      "answer": [{"text": "a", "citations": ["zz"]}]}, "citation 'zz' is not in references"),
])
def test_bad_answers_are_refused_with_file_and_line(db_url, tmp_path, record, reason):
    good = {"run_id": "ok", "topic_id": "t0", "references": [], "answer": [{"text": "fine", "citations": []}]}
    path = _write(tmp_path / "bad.jsonl", [good, record])
    result = run(db_url, "import", "answers", path)
    assert result.exit_code == 1
    assert "bad.jsonl:2: " in _err(result) and reason in _err(result)
    assert cli_ok(db_url, "export", "answers") == ""  # nothing half-imported


def test_a_second_answer_needs_replace(db_url, tmp_path):
    path = _write(tmp_path / "a.jsonl", _answers24())
    cli_ok(db_url, "import", "answers", path)
    again = run(db_url, "import", "answers", path)
    assert again.exit_code == 1 and "a.jsonl:1: run 'rA' already has an answer to topic 't1'" in _err(again)
    assert "replaced 2" in cli_ok(db_url, "import", "answers", "--replace", path)
    twice = _write(tmp_path / "twice.jsonl", _answers24()[:1] * 2)
    result = run(db_url, "import", "answers", "--replace", twice)
    assert result.exit_code == 1 and "twice.jsonl:2: a second answer of run 'rA'" in _err(result)


# --- nuggetizer's published formulas, written here independently ------------------------

def nuggetizer_scores(nuggets):
    """calculate_nugget_scores as nuggetizer documents it (plus the weighted pair of the
    issue): support 1, partial_support 0.5; strict counts support only; no vital -> 0."""
    def soft(a):
        return 1.0 if a == "support" else 0.5 if a == "partial_support" else 0.0

    def hard(a):
        return 1.0 if a == "support" else 0.0

    vital = [n for n in nuggets if n["importance"] == "vital"]
    w = [1.0 if n["importance"] == "vital" else 0.5 for n in nuggets]
    out = {}
    out["all"] = sum(soft(n["assignment"]) for n in nuggets) / len(nuggets) if nuggets else 0.0
    out["all_strict"] = sum(hard(n["assignment"]) for n in nuggets) / len(nuggets) if nuggets else 0.0
    out["vital"] = sum(soft(n["assignment"]) for n in vital) / len(vital) if vital else 0.0
    out["vital_strict"] = sum(hard(n["assignment"]) for n in vital) / len(vital) if vital else 0.0
    out["weighted"] = sum(wi * soft(n["assignment"]) for wi, n in zip(w, nuggets)) / sum(w) if w else 0.0
    out["weighted_strict"] = sum(wi * hard(n["assignment"]) for wi, n in zip(w, nuggets)) / sum(w) if w else 0.0
    return out


def _generated(seed=7, topics=6, runs=4):
    rnd = random.Random(seed)
    banks, records = {}, []
    for t in range(topics):
        k = rnd.randint(1, 8)
        banks[f"t{t}"] = [{"text": f"fact {t}.{i}", "importance": rnd.choice(["vital", "okay"])
                           if t != 0 else "okay"} for i in range(k)]  # t0: no vital nugget
    for t, bank in banks.items():
        for r in range(runs):
            if rnd.random() < 0.2:
                continue  # this run did not answer this topic
            records.append({"qid": t, "query": f"topic {t}", "run_id": f"run{r}",
                            "nuggets": [{**n, "assignment": rnd.choice(
                                ["support", "partial_support", "not_support"])} for n in bank]})
    return banks, records


def test_scores_equal_nuggetizer_formulas_per_answer_and_per_run(db_url, tmp_path):
    banks, records = _generated()
    path = _write(tmp_path / "assign.jsonl", records)
    cli_ok(db_url, "import", "assignments", path, "-a", "ann")
    got = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "assessor:ann", "-q",
                            "--format", "json"))
    assert got["measures"] == ["all", "all_strict", "vital", "vital_strict", "weighted", "weighted_strict"]
    expected = {}
    for rec in records:
        expected.setdefault(rec["run_id"], {})[rec["qid"]] = nuggetizer_scores(rec["nuggets"])
    zero = dict.fromkeys(got["measures"], 0.0)
    assert {s["system"] for s in got["systems"]} == set(expected)
    for system in got["systems"]:
        want = {t: expected[system["system"]].get(t, zero) for t in banks}  # unanswered: 0
        assert system["n_queries"] == len(banks)
        assert set(system["per_query"]) == set(banks)
        for t, values in system["per_query"].items():
            for m, v in values.items():
                assert abs(v - want[t][m]) <= 1e-12, (system["system"], t, m)
        for m in got["measures"]:
            mean = sum(want[t][m] for t in banks) / len(banks)
            assert abs(system["mean"][m] - mean) <= 1e-12
    answered = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "assessor:ann",
                                 "--answered-only", "--format", "json"))
    assert answered["averaged_over"] == "answered topics"
    for system in answered["systems"]:
        mine = expected[system["system"]]
        assert system["n_queries"] == len(mine)
        assert abs(system["mean"]["all"] - sum(v["all"] for v in mine.values()) / len(mine)) <= 1e-12


def test_nugget_and_assignment_files_round_trip(db_url, tmp_path):
    banks, records = _generated(seed=3)
    create = [{"qid": t, "query": f"topic {t}", "nuggets": bank} for t, bank in banks.items()]
    cli_ok(db_url, "import", "nuggets", _write(tmp_path / "n.jsonl", create))
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "a.jsonl", records), "-a", "ann")
    nug = [json.loads(x) for x in cli_ok(db_url, "export", "nuggets").splitlines()]
    assert nug == create
    back = [json.loads(x) for x in cli_ok(db_url, "export", "assignments", "--source",
                                          "assessor:ann").splitlines()]
    assert back == records
    scores = [json.loads(x) for x in cli_ok(db_url, "export", "nugget-scores", "--source",
                                            "assessor:ann").splitlines()]
    first = next(s for s in scores if s["qid"] != "all")
    rec = next(r for r in records if r["qid"] == first["qid"] and r["run_id"] == first["run_id"])
    assert abs(first["strict_vital_score"] - nuggetizer_scores(rec["nuggets"])["vital_strict"]) <= 1e-12


def test_assignment_errors_and_machine_failures(db_url, tmp_path):
    create = [{"qid": "t1", "query": "q", "nuggets": [{"text": "a", "importance": "vital"},
                                                      {"text": "b", "importance": "okay"}]}]
    cli_ok(db_url, "import", "nuggets", _write(tmp_path / "n.jsonl", create))
    unknown = [{"qid": "t1", "run_id": "r", "nuggets": [{"text": "zzz", "importance": "okay",
                                                         "assignment": "support"}]}]
    result = run(db_url, "import", "assignments", _write(tmp_path / "u.jsonl", unknown), "-a", "ann")
    assert result.exit_code == 1 and "u.jsonl:1: nugget 'zzz': not in the topic's nugget bank" in _err(result)
    bad = [{"qid": "t1", "run_id": "r", "nuggets": [{"text": "a", "importance": "vital", "assignment": "maybe"}]}]
    result = run(db_url, "import", "assignments", _write(tmp_path / "b.jsonl", bad), "-a", "ann")
    assert result.exit_code == 1 and "b.jsonl:1:" in _err(result)
    # a machine's answer without a label is a failure, never a label
    out = cli_ok(db_url, "import", "assignments", _write(tmp_path / "m.jsonl", [
        {"qid": "t1", "run_id": "r", "nuggets": [{"text": "a", "importance": "vital", "assignment": "maybe"},
                                                  {"text": "b", "importance": "okay", "assignment": "support"}]}]),
        "--machine", "--model", "gpt-x")
    assert "1 nugget assignments by 'gpt-x'" in out and "1 failures recorded" in out
    got = json.loads(cli_ok(db_url, "score", "--nuggets", "--source", "assessor:gpt-x", "--format", "json"))
    assert got["systems"][0]["mean"]["vital"] == 0.0 and got["systems"][0]["mean"]["all"] == 0.5


def test_list_runs_counts_answers_and_remove_run_archives_labels(db_url, tmp_path):
    cli_ok(db_url, "import", "answers", _write(tmp_path / "a.jsonl", _answers24()))
    cli_ok(db_url, "import", "assignments", _write(tmp_path / "s.jsonl", [
        {"qid": "t1", "run_id": "rA", "nuggets": [{"text": "x", "importance": "vital", "assignment": "support"}]},
        {"qid": "t1", "run_id": "rB", "nuggets": [{"text": "x", "importance": "vital", "assignment": "not_support"}]}]),
        "-a", "ann")
    rows = json.loads(cli_ok(db_url, "list", "runs", "--format", "json"))
    assert {r["run"]: r["answers"] for r in rows} == {"rA": 1, "rB": 1}
    out = cli_ok(db_url, "remove", "run", "rA")
    assert "1 nugget label events archived" in out
    left = [json.loads(x) for x in cli_ok(db_url, "export", "assignments", "--source", "assessor:ann").splitlines()]
    assert [r["run_id"] for r in left] == ["rB"]
    assert [json.loads(x)["run_id"] for x in cli_ok(db_url, "export", "answers").splitlines()] == ["rB"]


def test_a_frozen_bank_refuses_new_nuggets(db_url, tmp_path):
    cli_ok(db_url, "import", "nuggets", _write(tmp_path / "n.jsonl", [
        {"qid": "t1", "query": "q", "nuggets": [{"text": "a", "importance": "vital"}]}]))
    assert "frozen" in cli_ok(db_url, "nuggets", "freeze", "t1")
    result = run(db_url, "import", "assignments", _write(tmp_path / "x.jsonl", [
        {"qid": "t1", "run_id": "r", "nuggets": [{"text": "new one", "importance": "okay", "assignment": "support"}]}]),
        "-a", "ann")
    assert result.exit_code == 1 and "x.jsonl:1: nugget 'new one': its nugget bank is frozen" in _err(result)
    from workbench.campaign.answers import bank
    from workbench.campaign.database import Database
    from workbench.errors import UsageError

    db = Database.open(db_url, create=False)
    try:
        with pytest.raises(UsageError, match="frozen"):
            bank.add(db, "t1", "another")
    finally:
        db.close()
