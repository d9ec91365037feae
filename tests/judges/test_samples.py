"""Self-consistency: `autojudge --samples N` asks N times per item (refused at temperature 0,
seed + k for sample k), stores every sample, labels the item with their mode (ties to the
lower grade), and `calibrate` and `list assessors` report Fleiss' kappa over the samples
and the share of unanimous items; `--offline` replays samples too."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from sqlalchemy import select
from statsmodels.stats.inter_rater import fleiss_kappa

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.cli import main
from workbench.store.models import Assessor, MachineCall
from workbench.campaign.machine.self_consistency import sample_agreement_of


@pytest.fixture
def url(db_url):
    db = Database.open(db_url)
    build_campaign(db, n_queries=1, markup_doc=False)
    db.close()
    return db_url


def _aj(url, server, *extra):
    return main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url, "--timeout", "2",
                 "--retries", "0", "--concurrency", "2", *extra])


def test_samples_refused_at_temperature_zero(url, capsys):
    with ChatServer({}) as server:
        assert _aj(url, server, "--samples", "3") == 2
        assert "temperature" in capsys.readouterr().err and server.log == []


def test_mode_of_the_samples_and_their_agreement(url, capsys, monkeypatch):
    # each sample's answer depends on its seed: seed 0, 1, 2 -> grades per document
    answers = {0: [1, 2, 0, 3], 1: [1, 3, 0, 2], 2: [2, 1, 0, 1]}

    def handle(self, h, body):
        d = int(ChatServer_doc(body)) % 4
        answer = f"##final score: {answers[body['seed']][d]}"
        return _answer(self, h, body, answer)

    with ChatServer({}) as server:
        monkeypatch.setattr(ChatServer, "handle", handle)
        assert _aj(url, server, "--samples", "3", "--temperature", "0.7") == 0
        assert sorted({e.body["seed"] for e in server.log}) == [0, 1, 2]  # seed + k
    db = Database.open(url, create=False)
    try:
        labels = derive_qrels(db, QrelsSource.assessor("m1")).rows()
        with db.read() as s:
            calls = s.execute(select(MachineCall.document_id, MachineCall.sample, MachineCall.grade)
                              .join(Assessor, Assessor.id == MachineCall.assessor_id)
                              .where(Assessor.name == "m1")).all()
    finally:
        db.close()
    assert len(calls) == 3 * len(labels) and sorted({c[1] for c in calls}) == [0, 1, 2]
    for _q, doc, grade in labels:
        d = int(doc[1:]) % 4
        votes = Counter(answers[k][d] for k in range(3))
        top = max(votes.values())
        assert grade == min(g for g, c in votes.items() if c == top)  # mode, ties lower
    # Fleiss' kappa over the samples equals statsmodels', unanimous share by hand
    per_item = {}
    for doc, _k, g in calls:
        per_item.setdefault(doc, []).append(g)
    table = np.array([[v.count(c) for c in range(4)] for v in per_item.values()])
    cal = json.loads(_capture(capsys, ["--db", url, "calibrate", "--machine", "m1", "--format", "json"]))
    sc = cal["self_consistency"]
    assert sc["samples"] == 3 and sc["items"] == len(per_item)
    assert sc["fleiss_kappa"] == pytest.approx(fleiss_kappa(table[:, table.sum(axis=0) > 0]))
    assert sc["unanimous"] == pytest.approx(np.mean([len(set(v)) == 1 for v in per_item.values()]))
    listed = json.loads(_capture(capsys, ["--db", url, "list", "assessors", "--format", "json"]))
    m1 = next(r for r in listed if r["assessor"] == "m1")
    assert m1["sample_fleiss_kappa"] == pytest.approx(sc["fleiss_kappa"])
    # the samples count defines the machine; --offline replays every sample
    capsys.readouterr()
    with ChatServer({}) as dead:
        assert _aj(url, dead, "--samples", "2", "--temperature", "0.7") == 2
        assert "samples 3 (now 2)" in capsys.readouterr().err
        assert _aj(url, dead, "--samples", "3", "--temperature", "0.7", "--offline", "--assessor", "m1r") == 0
        assert dead.log == []
    db = Database.open(url, create=False)
    try:
        assert derive_qrels(db, QrelsSource.assessor("m1r")).rows() == labels
    finally:
        db.close()


def _capture(capsys, args):
    capsys.readouterr()
    assert main(args) == 0
    return capsys.readouterr().out


def ChatServer_doc(body):  # noqa: N802 - the document number in the prompt
    import re

    return re.search(r"Document d(\d+)", body["messages"][-1]["content"]).group(1)


def _answer(server, h, body, answer):
    from tests.machine.chat_server import Logged
    import time

    with server._lock:
        server.log.append(Logged("?", "?", 200, None, body, time.monotonic()))
    payload = json.dumps({"id": "x", "object": "chat.completion", "model": body.get("model"),
                          "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                       "finish_reason": "stop"}]}).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(payload)))
    h.end_headers()
    h.wfile.write(payload)


def test_sample_agreement_of_by_hand():
    qi = np.array([1, 1, 1, 1, 1, 1])
    di = np.array([1, 1, 1, 2, 2, 2])
    g = np.array([1, 1, 1, 0, 2, 2])
    sc = sample_agreement_of(qi, di, g)
    assert sc["samples"] == 3 and sc["items"] == 2 and sc["unanimous"] == 0.5
    assert sc["fleiss_kappa"] == pytest.approx(fleiss_kappa(np.array([[0, 3, 0], [1, 0, 2]])))
