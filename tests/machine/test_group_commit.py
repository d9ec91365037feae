"""autojudge's group commit: the answers already waiting when the writer is
free are committed together in one transaction (never waiting to fill a batch), and each
outcome is reported only after the commit that holds it."""

from __future__ import annotations

import contextlib
import threading
from types import SimpleNamespace

from sqlalchemy import func, select

from tests.tui.factory import build_campaign
from workbench.campaign.database import Database
from workbench.campaign.machine import autojudge as aj
from workbench.campaign.machine.client import CallResult
from workbench.campaign.machine.provenance import ensure_machine, make_provenance
from workbench.campaign.writing import write_transaction
from workbench.store.external_ids import document_ext_ids, query_ext_ids
from workbench.store.models import Judgment, MachineCall
from workbench.store.pools import pool_arrays


def _answer(grade: int | str) -> CallResult:
    text = f"##final score: {grade}"
    return CallResult(True, text, text, "", 1, 0.02)


def test_waiting_answers_share_one_transaction_and_are_reported_after_it(db_url, monkeypatch):
    db = Database.open(db_url)
    try:
        build_campaign(db, n_queries=2, markup_doc=False)
        with write_transaction(db) as s:
            aid = ensure_machine(s, "m1", make_provenance("m1", endpoint="http://127.0.0.1:1/v1",
                                                          prompt="{query} {passage}", parameters={}))
        with db.read() as s:
            p = pool_arrays(s)
            qs = query_ext_ids(s, p.query_id).tolist()
            ds = document_ext_ids(s, p.document_id).tolist()
        items = [(SimpleNamespace(query=q, document=d), int(qi), int(di), _answer(k % 4))
                 for k, (q, d, qi, di) in enumerate(zip(qs, ds, p.query_id, p.document_id))][:6]
        items[3] = items[3][:3] + (_answer("none"),)  # no grade: a failure, in the same batch

        transactions = []

        @contextlib.contextmanager
        def counted(database, **kw):
            with write_transaction(database, **kw) as s:
                yield s
            transactions.append(1)  # committed

        monkeypatch.setattr(aj, "write_transaction", counted)
        entered, go = threading.Event(), threading.Event()
        reports = []

        def on_stored(stored):
            # what is reported is on disk: a separate session sees its audit row
            with db.read() as s:
                rows = s.execute(select(func.count()).select_from(MachineCall)
                                 .where(MachineCall.assessor_id == aid)).scalar_one()
            reports.append((stored.outcome, stored.query, stored.document, stored.grade, rows))
            if len(reports) == 1:
                entered.set()
                go.wait(30)

        summary = aj.Summary()
        writers = aj._Writers(db, aid, [0, 1, 2, 3], summary, on_stored, 1)
        writers.put(items[0])
        assert entered.wait(30)
        for entry in items[1:]:  # these wait while the writer reports the first
            writers.put(entry)
        go.set()
        writers.finish()
        assert writers.failed is None
        assert len(transactions) == 2  # one for the first answer, one for the five waiting
        assert [r[4] for r in reports] == [1, 6, 6, 6, 6, 6]
        assert [r[:4] for r in reports] == [
            ("failure" if k == 3 else "label", it[0].query, it[0].document, None if k == 3 else k % 4)
            for k, it in enumerate(items)]
        assert (summary.labels, summary.failures, summary.errors) == (5, 1, 0)
        with db.read() as s:
            got = sorted(s.execute(select(Judgment.query_id, Judgment.document_id, Judgment.grade)
                                   .where(Judgment.assessor_id == aid)).all())
        assert got == sorted((it[1], it[2], k % 4) for k, it in enumerate(items) if k != 3)
    finally:
        db.close()
