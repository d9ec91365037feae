"""Machine assessors in the store (store/machine.py, campaign/machine/provenance.py):
kind, provenance and the call log on both backends; existing assessors are human; one
configuration per machine assessor."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.tui.factory import build_campaign
from workbench.campaign.assessors.roster import kinds
from workbench.campaign.judging.grades import record_grade
from workbench.campaign.machine.provenance import (
    clean_endpoint,
    create_machine,
    make_provenance,
    read_provenance,
)
from workbench.campaign.writing import write_transaction
from workbench.errors import NotFoundError, UsageError
from workbench.store.external_ids import document_id, query_id
from workbench.store.machine import (
    FAILURE,
    LABEL,
    append_call,
    call_rows,
    machine_assessor_ids,
    settled_items,
)

PROMPT = "Query: {query}\nPassage: {passage}\nGrade 0-3:"


def test_provenance_round_trip_and_kinds(db):
    build_campaign(db, assessors=("alice",))
    record_grade(db, "alice", "q1", "d001", 2)
    wanted = make_provenance("gpt-x", endpoint="https://user:s3cret@api.example.com/v1/?key=abc#f",
                             prompt=PROMPT, parameters={"temperature": 0, "max_tokens": 8, "seed": 1})
    aid = create_machine(db, "gpt-x", wanted)
    got = read_provenance(db, "gpt-x")
    assert got.model == "gpt-x"
    assert got.endpoint == "https://api.example.com/v1"  # no user, password, query or fragment
    assert got.prompt == PROMPT
    assert got.prompt_sha256 == hashlib.sha256(PROMPT.encode()).hexdigest()
    assert json.loads(got.parameters) == {"temperature": 0, "max_tokens": 8, "seed": 1}
    assert got.origin == "autojudge" and got.version.startswith("workbench ")
    assert got.created_at is not None
    assert kinds(db) == {"alice": "human", "gpt-x": "machine"}
    with db.read() as s:
        assert machine_assessor_ids(s).tolist() == [aid]
    # same configuration: the same assessor; another prompt or model: refused
    assert create_machine(db, "gpt-x", wanted) == aid
    with pytest.raises(UsageError, match="another assessor name"):
        create_machine(db, "gpt-x", make_provenance("gpt-x", prompt=PROMPT + " "))
    with pytest.raises(UsageError, match="is a person"):
        create_machine(db, "alice", wanted)
    with pytest.raises(NotFoundError, match="not a machine"):
        read_provenance(db, "alice")


def test_call_log_and_settled_items(db):
    build_campaign(db, assessors=("alice",))
    aid = create_machine(db, "m", make_provenance("m"))
    with write_transaction(db) as s:
        q, d1, d2 = query_id(s, "q1"), document_id(s, "d001"), document_id(s, "d002")
        append_call(s, aid, q, d1, outcome=LABEL, grade=3, raw="3", attempts=2, seconds=0.5)
        append_call(s, aid, q, d2, outcome=FAILURE, grade=None, raw="I cannot say", error="no grade")
    with db.read() as s:
        assert settled_items(s, aid) == {(q, d1), (q, d2)}
        assert settled_items(s, aid, with_failures=False) == {(q, d1)}
        rows = list(call_rows(s))
    assert [(r.assessor, r.query, r.document, r.outcome, r.grade, r.raw, r.error, r.attempts)
            for r in rows] == [("m", "q1", "d001", "label", 3, "3", "", 2),
                               ("m", "q1", "d002", "failure", None, "I cannot say", "no grade", 1)]


@pytest.mark.parametrize("url, clean", [
    ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
    ("https://k:p@h.example/v1?api_key=x", "https://h.example/v1"),
    ("http://[::1]:11434/v1", "http://[::1]:11434/v1"),
])
def test_clean_endpoint(url, clean):
    assert clean_endpoint(url) == clean
