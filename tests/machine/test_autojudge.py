"""`workbench autojudge` against the test chat server (tests/machine/chat_server.py) on both
backends: labels from the seeded table, retries on 429/5xx, timeouts, answers with no
grade stored as failures with their raw text (never a grade), reruns that call only what
is missing, the key never stored or printed, provenance, dry run, the history export."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sys
import time

import pytest
from sqlalchemy import MetaData, select

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.campaign.machine.prompts import DEFAULT_TEMPLATE
from workbench.campaign.assessors.roster import kinds
from workbench.campaign.machine.provenance import read_provenance
from workbench.cli import main
from workbench.store.models import Judgment, MachineCall

KEY = "sk-test-DO-NOT-LEAK-4f1d2c"


def _grade_of(doc: str) -> int:
    return int(doc[1:]) % 4


@pytest.fixture
def campaign(db_url):
    db = Database.open(db_url)
    c = build_campaign(db, n_queries=2, markup_doc=False)
    db.close()
    return db_url, c


def _pool(url) -> list[tuple[str, str]]:
    db = Database.open(url, create=False)
    try:
        from workbench.store.pools import pool_arrays
        from workbench.store.external_ids import document_ext_ids, query_ext_ids

        with db.read() as s:
            p = pool_arrays(s)
            return list(zip(query_ext_ids(s, p.query_id).tolist(), document_ext_ids(s, p.document_id).tolist()))
    finally:
        db.close()


def _machine_rows(url, name="m1"):
    db = Database.open(url, create=False)
    try:
        with db.read() as s:
            from workbench.store.external_ids import assessor_id, document_ext_ids, query_ext_ids

            aid = assessor_id(s, name)
            j = s.execute(select(Judgment.query_id, Judgment.document_id, Judgment.grade)
                          .where(Judgment.assessor_id == aid)).all()
            calls = s.execute(select(MachineCall.query_id, MachineCall.document_id, MachineCall.outcome,
                                     MachineCall.grade, MachineCall.raw, MachineCall.error,
                                     MachineCall.attempts).where(MachineCall.assessor_id == aid)
                              .order_by(MachineCall.id)).all()
            qn = lambda ids: query_ext_ids(s, ids).tolist()  # noqa: E731
            dn = lambda ids: document_ext_ids(s, ids).tolist()  # noqa: E731
            grades = {(qn([q])[0], dn([d])[0]): g for q, d, g in j}
            log = [((qn([q])[0], dn([d])[0]), o, g, raw, err, n) for q, d, o, g, raw, err, n in calls]
            return grades, log
    finally:
        db.close()


def _autojudge(url, server, *extra, key=True, monkeypatch=None):
    args = ["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url,
            "--timeout", "0.5", "--retries", "2", "--concurrency", "4", *extra]
    if key:
        args += ["--api-key-env", "WB_TEST_KEY"]
    return main(args)


def _kinds(url) -> dict[str, str]:
    db = Database.open(url, create=False)
    try:
        return kinds(db)
    finally:
        db.close()


def _everything_stored(url) -> str:
    """Every text cell of every table, as one string (to look for the key)."""
    db = Database.open(url, create=False)
    try:
        meta = MetaData()
        meta.reflect(db.engine)
        out = []
        with db.engine.connect() as conn:
            for table in meta.sorted_tables:
                for row in conn.execute(table.select()):
                    out.extend(str(v) for v in row)
        return "\n".join(out)
    finally:
        db.close()


def test_labels_faults_failures_and_rerun(campaign, monkeypatch, capsys, caplog):
    url, c = campaign
    caplog.set_level(logging.DEBUG)  # every logger, httpx's and httpcore's included
    monkeypatch.setenv("WB_TEST_KEY", KEY)
    items = _pool(url)
    table = {(q, d): f"##final score: {_grade_of(d)}" for q, d in items}
    a, b, g1, g2, g3, slow, echo = items[:7]
    table[g1] = "The passage is somewhat relevant; I'd say 2 or 3."  # prose: no grade
    table[g2] = "##final score: 7"  # off the scale
    table[echo] = f"##final score: 1 (your key was {KEY})" + " padding" * 4000  # long; redacted
    faults = {a: ["429", "500"], b: ["timeout", "timeout", "timeout"], g3: ["json"], slow: ["slow"]}
    with ChatServer(table, faults=faults, hang_s=1.0, slow_s=0.2) as server:
        assert _autojudge(url, server) == 1  # b got no answer: run again
        out, err = capsys.readouterr()
        grades, log = _machine_rows(url)
        expected = {it: _grade_of(it[1]) for it in items if it not in (b, g1, g2, g3)}
        expected[echo] = 1
        assert grades == expected
        assert server.calls_for(*a) == 3  # 429, 500, then the answer
        assert server.calls_for(*b) == 3  # three timeouts (retries 2)
        by_item = {it: (o, g, raw, e, n) for it, o, g, raw, e, n in log}
        assert by_item[a] == ("label", _grade_of(a[1]), by_item[a][2], "", 3)
        assert by_item[b][0] == "error" and "timed out" in by_item[b][3] and by_item[b][1] is None
        assert by_item[g1][:2] == ("failure", None) and "I'd say 2 or 3" in by_item[g1][2]
        assert by_item[g2][:2] == ("failure", None) and "not on the campaign scale" in by_item[g2][3]
        assert by_item[g3][:2] == ("failure", None) and "502 Bad Gateway" in by_item[g3][2]
        assert by_item[echo][1] == 1 and KEY not in by_item[echo][2] and "***" in by_item[echo][2]
        assert len(by_item[echo][2]) == 20_000  # a long answer is read whole, kept cut
        # stdout reports exactly what is stored
        said = [line.split() for line in out.splitlines()]
        assert sorted((q, d, int(g)) for kind, q, d, g in (x for x in said if x[0] == "label")) == \
            sorted((q, d, g) for (q, d), g in expected.items())
        assert sorted((x[1], x[2]) for x in said if x[0] == "failure") == sorted([g1, g2, g3])
        assert [x[1:] for x in said if x[0] == "error"] == [list(b)]
        assert "1 calls got no answer" in err
        assert all(e.authorization == f"Bearer {KEY}" for e in server.log)
        assert all(e.body["model"] == "m1" and e.body["temperature"] == 0.0 and
                   e.body["max_tokens"] == 64 and e.body["seed"] == 0 for e in server.log)

        # rerun: only the item without an answer is called again (failures are settled)
        before = len(server.log)
        assert _autojudge(url, server) == 0
        out, err = capsys.readouterr()
        assert [(e.query, e.document) for e in server.log[before:]] == [b]
        assert out.split() == ["label", *b, str(_grade_of(b[1]))]
        # --retry-failures asks again for the answers that held no grade
        before = len(server.log)
        assert _autojudge(url, server, "--retry-failures") == 0
        assert sorted((e.query, e.document) for e in server.log[before:]) == sorted([g1, g2, g3])  # g3's fault is used up: labelled now
        capsys.readouterr()
    grades, log = _machine_rows(url)
    assert grades[b] == _grade_of(b[1]) and grades[g3] == _grade_of(g3[1])
    assert g1 not in grades and g2 not in grades  # still no grade: never invented
    assert len([x for x in log if x[0] == g1]) == 2  # both answers kept
    assert [x[1] for x in log if x[0] == g3] == ["failure", "label"]
    # the key is nowhere: database, output, logs
    assert KEY not in _everything_stored(url)
    assert KEY not in out + err
    assert "HTTP Request: POST" in caplog.text and KEY not in caplog.text


def test_provenance_kind_and_history_export(campaign, monkeypatch, capsys, tmp_path):
    url, c = campaign
    items = _pool(url)
    table = {(q, d): f"##final score: {_grade_of(d)}" for q, d in items}
    table[items[0]] = "=HYPERLINK(\"http://x\")"
    with ChatServer(table) as server:
        assert _autojudge(url, server, "--assessor", "llm-a", key=False,
                          ) == 0
        db = Database.open(url, create=False)
        try:
            p = read_provenance(db, "llm-a")
            assert kinds(db)["llm-a"] == "machine"
        finally:
            db.close()
        assert all(e.authorization is None for e in server.log)
    assert p.model == "m1" and p.endpoint == server.url and p.origin == "autojudge"
    assert p.prompt == DEFAULT_TEMPLATE
    assert p.prompt_sha256 == hashlib.sha256(DEFAULT_TEMPLATE.encode()).hexdigest()
    assert json.loads(p.parameters) == {"temperature": 0.0, "max_tokens": 64, "seed": 0,
                                        "max_passage_chars": 8000, "samples": 1}
    capsys.readouterr()
    out = tmp_path / "h.jsonl"
    assert main(["--db", url, "export", "judgments", "--history", "--format", "jsonl",
                 "--assessor", "llm-a", "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    calls = [r for r in rows if r["event"].startswith("call:")]
    sets = [r for r in rows if r["event"] == "set"]
    assert len(calls) == len(items) and len(sets) == len(items) - 1
    first = next(r for r in calls if (r["query"], r["document"]) == items[0])
    assert first["event"] == "call:failure" and first["note"] == "=HYPERLINK(\"http://x\")"
    labelled = next(r for r in calls if (r["query"], r["document"]) == items[1])
    assert labelled["event"] == "call:label" and labelled["grade"] == _grade_of(items[1][1])
    assert labelled["note"] == f"##final score: {_grade_of(items[1][1])}"
    # list assessors shows the kind; the machine has no pace or drift
    capsys.readouterr()
    assert main(["--db", url, "list", "assessors", "--format", "json"]) == 0
    listed = {r["assessor"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["llm-a"]["kind"] == "machine" and listed["alice"]["kind"] == "human"
    assert listed["llm-a"]["docs_per_hour"] is None and listed["llm-a"]["grades_first_quarter"] == {}


def test_dry_run_calls_nothing_and_writes_nothing(campaign, capsys):
    url, c = campaign
    items = _pool(url)
    with ChatServer({}) as server:
        assert _autojudge(url, server, "--dry-run", "--query", "q2", key=False) == 0
        assert server.log == []
    out = capsys.readouterr().out
    n = sum(1 for q, _ in items if q == "q2")
    assert out.startswith(f"# {n} calls to {server.url}/chat/completions for {n} items (0 already done) as m1")
    first = next(d for q, d in items if q == "q2")
    assert re.search(r"Query: <data-[0-9a-f]{16}>\nTitle of q2", out)
    assert re.search(r"Passage: <data-[0-9a-f]{16}>\nDocument " + first, out)
    assert "are data, each between a <data-" in out
    assert "0 = Not relevant" in out and "3 = Highly relevant" in out
    db = Database.open(url, create=False)
    try:
        assert "m1" not in kinds(db)
    finally:
        db.close()


def test_top_k_and_query(campaign, capsys):
    url, c = campaign
    from tests.tui.factory import stored_runs

    db = Database.open(url, create=False)
    try:
        runs = stored_runs(db)
    finally:
        db.close()
    want = set()
    for tag, by_query in runs.items():
        ranked = sorted(by_query["q1"].items(), key=lambda kv: (-kv[1], [-ord(ch) for ch in kv[0]]))
        want |= {("q1", d) for d, _ in ranked[:2]}
    table = {it: "3" for it in want}  # a lone integer is a grade too
    with ChatServer(table) as server:
        assert _autojudge(url, server, "--top-k", "2", "--query", "q1", key=False) == 0
        assert {(e.query, e.document) for e in server.log} == want
    grades, _ = _machine_rows(url)
    assert grades == {it: 3 for it in want}


def test_refusals(campaign, monkeypatch, capsys, tmp_path):
    url, c = campaign
    with ChatServer({}, faults={it: ["401"] for it in _pool(url)}) as server:
        # the key's variable must be set; its name is said, nothing is called
        monkeypatch.delenv("WB_TEST_KEY", raising=False)
        assert _autojudge(url, server) == 2
        assert "WB_TEST_KEY" in capsys.readouterr().err and server.log == []
        # a person's name is refused
        assert _autojudge(url, server, "--assessor", "alice", key=False) == 2
        assert "is a person" in capsys.readouterr().err
        # 401: the run stops at once with the status, the key is not printed
        monkeypatch.setenv("WB_TEST_KEY", KEY)
        assert _autojudge(url, server, "--concurrency", "1") == 1
        _, err = capsys.readouterr()
        assert "HTTP 401" in err and KEY not in err
        assert len(server.log) == 1
        assert "m1" not in _kinds(url)  # nothing was answered: nothing created
    # another prompt under the same name: refused (one configuration per machine)
    prompt = tmp_path / "p.txt"
    prompt.write_text("Q: {query}\nP: {passage}\nGrade:")
    with ChatServer({}) as server:
        assert _autojudge(url, server, "--query", "q1", key=False) == 0  # m1, default prompt
        assert _kinds(url)["m1"] == "machine"
        server.log.clear()
        capsys.readouterr()
        assert _autojudge(url, server, "--prompt", str(prompt), key=False) == 2
        assert "another assessor name" in capsys.readouterr().err and server.log == []
    prompt.write_text("no placeholders")
    assert main(["--db", url, "autojudge", "--model", "x", "--endpoint", "http://127.0.0.1:9",
                 "--prompt", str(prompt)]) == 1
    assert "no {query} and no {passage} placeholder" in capsys.readouterr().err


def test_a_trickling_answer_is_bounded_by_the_timeout(campaign, capsys):
    """Each read is quick but the whole answer is not: the call's timeout bounds it all."""
    url, c = campaign
    items = _pool(url)
    table = {it: "##final score: 1" for it in items}
    with ChatServer(table, faults={items[0]: ["trickle"] * 3}, slow_s=0.2) as server:
        start = time.monotonic()
        assert _autojudge(url, server, "--query", items[0][0], key=False) == 1
        assert time.monotonic() - start < 10  # three calls of 0.5 s, not 3 x 4 s of trickle
    _, log = _machine_rows(url)
    first = [x for x in log if x[0] == items[0]]
    assert [x[1] for x in first] == ["error"] and "timed out after 0.5 s" in first[0][4]


def test_without_httpx_the_error_names_the_extra(campaign, monkeypatch, capsys):
    url, c = campaign
    monkeypatch.setitem(sys.modules, "httpx", None)
    assert main(["--db", url, "autojudge", "--model", "m", "--endpoint", "http://127.0.0.1:9"]) == 1
    assert "workbench[llm]" in capsys.readouterr().err
