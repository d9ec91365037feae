"""store.rankings: one system's ranking for one query, cut from its run_arrays row, with
titles; and one query's grades. On every backend."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import delete, select

from tests.tui.factory import build_campaign
from workbench.campaign.agreement.adjudication import adjudicate
from workbench.campaign.catalog.importing import import_run
from workbench.campaign.judging.grades import record_grade
from workbench.errors import NotFoundError
from workbench.store.models import Document, RunArrays
from workbench.store.query_titles import query_titles
from workbench.store.rankings import query_grades, query_id_of, system_ranking

RUN = """\
q2 Q0 d003 1 5.5 mine
q1 Q0 d002 1 2.25 mine
q1 Q0 d010 2 2.25 mine
q1 Q0 new-doc 3 7.0 mine
q1 Q0 d001 4 -1.5 mine
"""


def test_system_ranking_reads_the_run_arrays_in_trec_order(db, tmp_path):
    build_campaign(db, n_queries=2, n_systems=1, depth=3, assessors=("alice", "bob"))
    (tmp_path / "mine.run").write_text(RUN)
    import_run(db, tmp_path / "mine.run")
    with db.read() as s:
        r = system_ranking(s, "mine", "q1")
        assert r.query_id == query_id_of(s, "q1")
        # score descending, the 2.25 tie by docno descending; a stub document has no title
        assert r.docno.tolist() == ["new-doc", "d010", "d002", "d001"]
        assert r.title.tolist() == ["", "Document d010", "Document d002", "Document d001"]
        assert r.score.tolist() == [7.0, 2.25, 2.25, -1.5]
        assert r.score.dtype == np.float64 and r.document_id.dtype == np.int64
        other = system_ranking(s, "mine", "q2")
        assert other.docno.tolist() == ["d003"] and other.score.tolist() == [5.5]
        assert other.title.tolist() == ["Document d003"]
        with pytest.raises(NotFoundError, match="unknown system 'nope'"):
            system_ranking(s, "nope", "q1")
        with pytest.raises(NotFoundError, match="unknown query 'q9'"):
            system_ranking(s, "mine", "q9")
        assert query_titles(s).ext_id == ("q1", "q2")
        assert query_titles(s).title == ("Title of q1", "Title of q2")
    with db.write.begin() as s:  # a system without arrays has no results (never `result`)
        s.execute(delete(RunArrays))
    with db.read() as s:
        empty = system_ranking(s, "mine", "q1")
        assert empty.document_id.size == empty.docno.size == empty.score.size == 0


def test_query_grades_are_every_judgment_and_adjudication_of_the_query(db):
    build_campaign(db, n_queries=2, n_systems=1, depth=3, assessors=("alice", "bob"))
    record_grade(db, "alice", "q1", "d002", 2)
    record_grade(db, "bob", "q1", "d002", 0)
    record_grade(db, "bob", "q1", "d005", 1)
    record_grade(db, "bob", "q2", "d002", 3)  # another query: left out
    adjudicate(db, "lead", "q1", "d002", 1)
    with db.read() as s:
        qid = query_id_of(s, "q1")
        g = query_grades(s, qid)
        doc = dict(s.execute(select(Document.ext_id, Document.id)).all())
    rows = sorted(zip(g.document_id.tolist(), g.assessor.tolist(), g.grade.tolist()))
    assert rows == sorted([(doc["d002"], "alice", 2), (doc["d002"], "bob", 0), (doc["d005"], "bob", 1)])
    assert g.adjudicated_document_id.tolist() == [doc["d002"]]
    assert g.adjudicated_grade.tolist() == [1]
    assert g.grade.dtype == np.int64 and g.document_id.dtype == np.int64
