"""`import dataset ID`: a local ir_datasets dataset (tests/irds_local.py, several query
fields, qrels_defs, graded and negative qrels, documents) into the campaign, offline, on
both backends; a dataset not downloaded writes nothing."""

from __future__ import annotations

import socket

import pytest
from sqlalchemy import select

from tests.campaign.test_importing import grades_of, snapshot
from workbench.campaign.catalog.datasets import import_dataset
from workbench.errors import InputError
from workbench.store.models import Document, Query

pytest.importorskip("ir_datasets")


@pytest.fixture
def local(tmp_path, monkeypatch):
    from tests.irds_local import register

    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))

    def no_network(*a, **k):
        raise OSError("network is switched off in this test")

    monkeypatch.setattr(socket, "create_connection", no_network)
    return register(tmp_path)


def _rows(db, stmt):
    with db.read() as s:
        return s.execute(stmt).all()


def test_import_dataset_writes_queries_docs_scale_and_grades(db, local):
    from workbench.campaign.scale import show_scale

    summary = import_dataset(db, "workbench-test/trec", assessor="nist")
    # negative grades as written: in the pool, unjudged (trec_eval's reading, docs/file-formats.md)
    assert grades_of(db, "nist") == [("101", "d1", 2), ("101", "d2", 1), ("101", "d3", 0),
                                     ("101", "d4", -1), ("102", "d2", -1), ("102", "d5", 1),
                                     ("102", "d6", 0)]
    assert summary.negative == 2  # 101 d4 -1, 102 d2 -1
    msg = summary.message()
    assert "2 of them negative" in msg and "7 judgments by 'nist'" in msg
    assert [(g, label) for g, label, _ in show_scale(db)] == [
        (0, "not relevant"), (1, "relevant"), (2, "highly relevant")]
    queries = _rows(db, select(Query.ext_id, Query.title, Query.description, Query.narrative)
                    .order_by(Query.ext_id))
    assert queries[0] == ("101", "solar power", "How do solar panels make electricity?",
                          "Documents on photovoltaics are relevant.")
    assert queries[1][:2] == ("102", "tidal energy")
    docs = dict(_rows(db, select(Document.ext_id, Document.text)))
    # pooled: the documents of the qrels (d4's one qrel is -1: in the pool; not d7)
    assert set(docs) == {"d1", "d2", "d3", "d4", "d5", "d6"}
    assert docs["d1"] == "Photovoltaic cells turn sunlight into current."
    again = import_dataset(db, "workbench-test/trec", assessor="nist", docs="none")
    assert again.qrels.unchanged == 7 and again.documents is None
    assert "grades exist already" in again.message()


def test_docs_all_and_a_one_field_dataset(db, local):
    summary = import_dataset(db, "workbench-test/simple", assessor="ann", docs="all")
    docs = dict(_rows(db, select(Document.ext_id, Document.text)))
    assert len(docs) == 7 and docs["d7"] == "Never judged."
    assert summary.queries.records == 2 and "scale kept" in summary.message()  # no qrels_defs
    assert _rows(db, select(Query.title).where(Query.ext_id == "102")) == [("tidal energy",)]


def test_a_dataset_not_downloaded_writes_nothing(db, local):
    before = snapshot(db)
    with pytest.raises(InputError) as info:
        import_dataset(db, "workbench-test/absent", assessor="nist")
    assert "IR_DATASETS_HOME" in str(info.value) and "\n" not in str(info.value)
    assert snapshot(db) == before


def test_a_grade_off_the_scale_writes_nothing(db, local, tmp_path):
    from workbench.campaign.catalog.importing import import_qrels
    from workbench.campaign.scale import set_scale

    set_scale(db, "binary")
    (tmp_path / "one.qrels").write_text("101 0 d1 1\n")
    import_qrels(db, tmp_path / "one.qrels", assessor="ann")  # a grade: the scale stays binary
    before = snapshot(db)
    with pytest.raises(InputError) as info:  # d1's grade 2 is not on 0-1
        import_dataset(db, "workbench-test/trec", assessor="nist")
    assert str(info.value).startswith("irds:workbench-test/trec:1: grade 2 is not on the campaign scale")
    assert snapshot(db) == before
