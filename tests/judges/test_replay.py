"""Replay: an online autojudge run stores each call's answer under the sha256 of (model,
messages, parameters, sample index); `autojudge --offline --assessor NEW` then labels a new
machine from those answers only, against a server that refuses every call, and its labels
equal the online run's; a call without a stored answer fails, naming the first missing
key, with nothing written."""

from __future__ import annotations

import hashlib
import json

import pytest
from sqlalchemy import select

from tests.machine.chat_server import ChatServer
from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.campaign.machine.replay import call_key
from workbench.campaign.scoring.qrels import derive_qrels
from workbench.campaign.scoring.sources import QrelsSource
from workbench.cli import main
from workbench.store.models import Assessor, MachineCall


@pytest.fixture
def url(db_url):
    db = Database.open(db_url)
    build_campaign(db, n_queries=2, markup_doc=False)
    db.close()
    return db_url


def _pool(url):
    from workbench.store.external_ids import document_ext_ids, query_ext_ids
    from workbench.store.pools import pool_arrays

    db = Database.open(url, create=False)
    try:
        with db.read() as s:
            p = pool_arrays(s)
            return list(zip(query_ext_ids(s, p.query_id).tolist(), document_ext_ids(s, p.document_id).tolist()))
    finally:
        db.close()


def _aj(url, server, *extra):
    return main(["--db", url, "autojudge", "--model", "m1", "--endpoint", server.url, "--timeout", "2",
                 "--retries", "0", "--concurrency", "3", *extra])


def _labels(url, name):
    db = Database.open(url, create=False)
    try:
        return derive_qrels(db, QrelsSource.assessor(name)).rows()
    finally:
        db.close()


def test_call_key_is_the_sha256_of_model_messages_parameters_sample():
    params = {"temperature": 0.0, "max_tokens": 64, "seed": 0}
    text = json.dumps({"model": "m", "messages": [{"role": "user", "content": "P"}], "parameters": params,
                       "sample": 0}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert call_key("m", "P", params) == hashlib.sha256(text.encode()).hexdigest()
    assert call_key("m", "P", params, 1) != call_key("m", "P", params)


def test_offline_replays_the_online_labels_exactly(url, capsys):
    items = _pool(url)
    table = {it: f"##final score: {int(it[1][1:]) % 4}" for it in items}
    table[items[0]] = "I would not say."  # an answer without a grade: replayed as a failure too
    with ChatServer(table) as server:
        assert _aj(url, server) == 0
    online = _labels(url, "m1")
    assert len(online) == len(items) - 1
    # the server now refuses every call
    with ChatServer({}, faults={it: ["401"] * 5 for it in items}) as dead:
        assert _aj(url, dead, "--offline", "--assessor", "m1-replay") == 0
        assert dead.log == []  # nothing called
    assert _labels(url, "m1-replay") == online
    db = Database.open(url, create=False)
    try:
        with db.read() as s:
            keys = {a: sorted(k for (k,) in s.execute(
                select(MachineCall.call_key).join(Assessor, MachineCall.assessor_id == Assessor.id)
                .where(Assessor.name == a))) for a in ("m1", "m1-replay")}
    finally:
        db.close()
    assert keys["m1"] == keys["m1-replay"] and len(keys["m1"]) == len(items) and None not in keys["m1"]
    capsys.readouterr()
    # other parameters: other keys, none stored; the first missing one is named, nothing written
    with ChatServer({}) as dead:
        assert _aj(url, dead, "--offline", "--assessor", "m1-hot", "--max-tokens", "32") == 2
        err = capsys.readouterr().err
        assert "no stored answer for call" in err and "query 'q1'" in err and dead.log == []
    with pytest.raises(Exception):
        _labels(url, "m1-hot")  # never created
    # --offline needs a new assessor's name
    assert _aj(url, ChatServer({}), "--offline") == 2
